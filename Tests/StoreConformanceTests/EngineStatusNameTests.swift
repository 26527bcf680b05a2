import Foundation
import Payments
import Scheduler
import Testing
import Vault

/// The storage engines never type a status, state, type or purpose name of their own: every one in
/// a statement comes from the domain enum that defines it (``StatusName``), so a renamed case breaks
/// the build instead of leaving a statement that silently matches no row. The schemas' CHECK lists
/// and the released migrations are the exceptions (frozen text, compared by the parity test).
@Suite("Store conformance: status names come from the domain")
struct EngineStatusNameTests {
    /// Every name the domain's status enums store.
    static let storedNames: Set<String> = {
        var names = Set<String>()
        func add<Name: StatusName>(_: Name.Type) { names.formUnion(Name.allCases.map(\.rawValue)) }
        add(StepStatus.self)
        add(ScheduleStatus.self)
        add(ChargeRunStatus.self)
        add(TransactionStatus.self)
        add(TransactionType.self)
        add(SecureCard.Status.self)
        add(Merchant.Status.self)
        add(Operator.Status.self)
        add(ReceiptStatus.self)
        add(WebhookEventStatus.self)
        add(KeyPurpose.self)
        add(CaptureSession.Status.self)
        add(IdempotencyRecordState.self)
        return names
    }()

    /// `'name'` tokens of a line of Swift source.
    static func quotedNames(in line: Substring) -> [String] {
        line.split(separator: "'", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }
            .map { String($0.element) }
            .filter { !$0.isEmpty && $0.allSatisfy { $0.isLowercase || $0 == "_" } }
    }

    /// The engine sources whose statements must take names from the domain.
    static func engineSources() throws -> [URL] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var files: [URL] = []
        for engine in ["VaultSQLite", "VaultPostgres"] {
            let directory = root.appendingPathComponent("Sources").appendingPathComponent(engine)
            guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else { continue }
            for case let file as URL in walker where file.pathExtension == "swift" {
                let name = file.lastPathComponent
                if name.contains("Schema") || name.contains("Migration") { continue }
                files.append(file)
            }
        }
        return files
    }

    @Test func noEngineStatementTypesAStatusNameOfItsOwn() throws {
        let files = try Self.engineSources()
        #expect(files.count > 40, "the engine sources were not found beside this test")
        var typed: [String] = []
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                for name in Self.quotedNames(in: line) where Self.storedNames.contains(name) {
                    typed.append("\(file.lastPathComponent):\(number + 1) '\(name)'")
                }
            }
        }
        #expect(typed.isEmpty, "status names typed in engine statements: \(typed.joined(separator: ", "))")
    }

    @Test func theScanFindsATypedStatusName() {
        #expect(Self.quotedNames(in: "WHERE status = 'pending' AND type = 'capture'") == ["pending", "capture"])
        #expect(Self.quotedNames(in: "WHERE status = \\(unescaped: WebhookEventStatus.pending.sqlLiteral)").isEmpty)
        #expect(Self.storedNames.isSuperset(of: ["pending", "needs_review", "in_progress", "running", "offboarded", "data"]))
    }
}
