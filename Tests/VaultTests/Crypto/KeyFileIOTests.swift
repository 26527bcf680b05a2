import Testing
@testable import Vault

@Suite struct KeyFileIOTests {
    @Test(arguments: [
        ("master.key", "."), ("keys/master.key", "keys"), ("/etc/vault/master.key", "/etc/vault"), ("/master.key", "/"),
    ])
    func directoryToSyncIsTheParentOfThePath(path: String, directory: String) {
        #expect(KeyFileIO.directoryName(of: path) == directory)
    }
}
