/// Runs a `CREATE DATABASE`, trying again for up to six seconds: a copy of the server's template
/// fails while another session uses it ("source database is being accessed by other users"),
/// which a database created at the same moment by a test or benchmark beside it does for a few
/// milliseconds.
func createDatabaseRetrying(_ create: () async throws -> Void) async throws {
    var attempt = 0
    while true {
        do {
            try await create()
            return
        } catch {
            attempt += 1
            guard attempt < 300 else { throw error }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
