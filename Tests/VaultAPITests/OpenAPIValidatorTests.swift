import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// The document `GET /openapi.json` serves is a valid OpenAPI 3.1 document, as judged by
/// an independent validator (openapi-spec-validator, run through `scripts/validate-openapi.py`).
@Suite struct OpenAPIValidatorTests {
    /// The repository root, found from this file's path (`Tests/VaultAPITests/...`).
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func theServedDocumentPassesTheOpenAPISpecValidator() async throws {
        let fixture = try await APIFixture()
        let app = try buildApplication(runtime: fixture.runtime, logger: fixture.logger)
        let served = try await app.test(.router) { client in
            let response = try await client.send(.get, "/openapi.json", key: nil)
            #expect(response.status == .ok)
            return Data(response.body.readableBytesView)
        }
        let document = fixture.directory.file("openapi.json")
        try served.write(to: URL(fileURLWithPath: document))

        guard let python = Self.executable(named: "python3") else {
            Issue.record("python3 is not on PATH: this test runs scripts/validate-openapi.py with it (apt-get install python3)")
            return
        }
        let script = Self.repositoryRoot.appendingPathComponent("scripts/validate-openapi.py").path
        #expect(FileManager.default.fileExists(atPath: script), "scripts/validate-openapi.py is missing")

        let (status, output) = try await Self.run(python, arguments: [script, document])
        #expect(status == 0, "scripts/validate-openapi.py rejected the served document:\n\(output)")
        #expect(output.contains("valid: OpenAPI 3.1"), "unexpected validator output:\n\(output)")
    }

    @Test func theValidatorRejectsABrokenDocument() async throws {
        guard let python = Self.executable(named: "python3") else {
            Issue.record("python3 is not on PATH: this test runs scripts/validate-openapi.py with it (apt-get install python3)")
            return
        }
        let directory = TemporaryDirectory()
        let broken = directory.file("broken.json")
        try Data(#"{"openapi": "3.1.0", "info": {"version": "1"}, "paths": {"/x": {"get": {"responses": {"200": {}}}}}}"#.utf8)
            .write(to: URL(fileURLWithPath: broken))
        let script = Self.repositoryRoot.appendingPathComponent("scripts/validate-openapi.py").path
        let (status, output) = try await Self.run(python, arguments: [script, broken])
        #expect(status == 1, "a document without info.title and a response without description passed:\n\(output)")
        #expect(output.contains("title"))
    }

    /// The first executable called `name` on PATH.
    static func executable(named name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `executable` and returns its exit status and its standard output and error together.
    static func run(_ executable: String, arguments: [String]) async throws -> (Int32, String) {
        let process = try Subprocess(executable: executable, arguments: arguments, environment: ProcessInfo.processInfo.environment)
        let finished = await process.finish()
        return (finished.status, finished.standardOutput + finished.standardError)
    }
}
