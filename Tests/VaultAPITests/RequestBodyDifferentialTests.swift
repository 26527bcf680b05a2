import Foundation
import HTTPTypes
import PropertyBased
import Testing
import Vault
@testable import VaultAPI

/// The request body path (parse once, check the contract on the tree, decode from the tree) answers
/// every body as the old path (`OldJSONBodyPath`: duplicate scan, `JSONSerialization`, `JSONDecoder`)
/// did: the same decoded value, or the same error (status, code, param and message), except where
/// the old answer was wrong, each of which is pinned here by itself.
@Suite struct RequestBodyDifferentialTests {
    /// What a client sees of one body.
    enum Outcome: Equatable, CustomStringConvertible {
        /// Decoded; the value's reflection (compared, never printed: it may hold a test card number).
        case decoded(String)
        case refused(status: Int, code: String, param: String?, message: String)
        case unexpected(String)

        var description: String {
            switch self {
            case .decoded(let reflection): "decoded (\(reflection.count) characters of reflection)"
            case .refused(let status, let code, let param, let message): "\(status) \(code) \(param ?? "-"): \(message)"
            case .unexpected(let type): "unexpected \(type)"
            }
        }

        init(_ body: () throws -> some Any) {
            do {
                self = .decoded(String(reflecting: try body()))
            } catch let error as APIError {
                self = .refused(status: error.status.code, code: error.code, param: error.param, message: error.message)
            } catch {
                self = .unexpected(String(describing: type(of: error)))
            }
        }

        var code: String? {
            if case .refused(_, let code, _, _) = self { return code }
            return nil
        }
    }

    /// One JSON route: its method, a concrete path, good bodies, and the type it decodes.
    struct Route: Sendable {
        let method: String
        let path: String
        let good: [String]
        let compare: @Sendable ([UInt8], OpenAPIContract.Operation?) -> (new: Outcome, old: Outcome)

        init<T: Decodable & SendableMetatype>(_ type: T.Type, _ method: String, _ path: String, _ good: [String]) {
            self.method = method
            self.path = path
            self.good = good
            compare = { bytes, operation in
                let new = Outcome { try bytes.withUnsafeBytes { try JSONCoding.decode(T.self, body: $0, operation: operation) } }
                let old = Outcome { try OldJSONBodyPath.decode(T.self, body: bytes, operation: operation) }
                return (new, old)
            }
        }

        var operation: OpenAPIContract.Operation? { OpenAPIContract.served.operation(method: method, path: path) }
    }

    struct CustomFieldDefinitions: Decodable {
        var fields: [CustomFieldDefinition]
    }

    static let card = #"{"number":"4242424242424242","expiryDate":"1230","holderName":"Seed Card"}"#
    static let routes: [Route] = [
        Route(SecureCardRegistrationRequest.self, "POST", "/v1/secure-cards", [
            #"{"merchantReference":"seed-1","method":"keyed","verify":false,"card":\#(card)}"#,
            #"{"merchantReference":"cust-2","method":"keyed","card":{"number":"5555555555554444","expiryDate":"0731","cvv":"123"},"customer":{"email":"ada@example.com","city":"Paris","country":"FR"},"customFields":[{"name":"note","value":"x"}]}"#,
        ]),
        Route(SecureCardUpdateRequest.self, "PATCH", "/v1/secure-cards/cust-1", [
            #"{"customer":{"city":"London","email":null},"customFields":[{"name":"a","value":"b"}],"verify":true}"#,
            #"{"method":"keyed","card":\#(card)}"#,
        ]),
        Route(TransactionRequest.self, "POST", "/v1/transactions", [
            #"{"type":"sale","amount":1999,"currency":"USD","method":"keyed","card":\#(card),"description":"Gym"}"#,
            #"{"type":"sale","amount":100,"secureCardReference":"cust-1","allowDuplicate":true,"receiptEmail":"a@example.com"}"#,
        ]),
        Route(FollowUpAmount.self, "POST", "/v1/transactions/txn_1/refund", [#"{"amount":500,"receiptEmail":"a@example.com"}"#]),
        Route(ScheduleRequest.self, "POST", "/v1/schedules", [
            #"{"merchantReference":"cust-1","amount":1999,"currency":"USD","description":"Gym","type":"monthly","startDate":"2030-01-31","endType":"count","endCount":3,"day":31,"hour":9,"minute":0,"timeZone":"America/New_York"}"#,
        ]),
        Route(ScheduleChangeRequest.self, "PATCH", "/v1/schedules/sch_1", [#"{"amount":2499,"description":null}"#]),
        Route(CaptureSessionRequest.self, "POST", "/v1/capture-sessions", [
            #"{"merchantReference":"cust-7","allowedOrigin":"https://shop.example","customer":{"email":"ada@example.com"}}"#,
        ]),
        Route(CaptureCardSubmission.self, "POST", "/v1/capture-sessions/cs_1/card", [
            #"{"method":"keyed","card":{"number":"4242424242424242","expiryDate":"1230","cvv":"123"}}"#,
        ]),
        Route(ReviewQueueResolveRequest.self, "POST", "/v1/review-queue/resolve", [
            #"{"items":[{"kind":"transaction","id":"txn_a","outcome":"not_charged"},{"kind":"step","id":"stp_b","outcome":"charged","gatewayTransactionId":"g1"}]}"#,
        ]),
        Route(ReviewQueueLookupRequest.self, "POST", "/v1/review-queue/lookup", [#"{"items":[{"kind":"transaction","id":"txn_a"},{"kind":"step","id":"stp_x"}]}"#]),
        Route(ReviewResolutionRequest.self, "POST", "/v1/transactions/txn_1/resolve", [#"{"outcome":"not_charged"}"#]),
        Route(StepResolutionRequest.self, "POST", "/v1/schedules/sch_1/steps/stp_1/resolve", [#"{"outcome":"charged","gatewayTransactionId":"g-1"}"#]),
        Route(CustomFieldDefinitions.self, "PUT", "/v1/custom-fields", [#"{"fields":[{"name":"Note","required":false,"maxLength":64}]}"#]),
        Route(ChargeRunsController.StartRequest.self, "POST", "/v1/charge-runs", [#"{"asOf":"2030-01-01","dryRun":true}"#]),
    ]

    /// Where the old path's answer was wrong: the new answer, pinned (nil: the two must agree).
    ///
    /// - Not JSON: `JSONDecoder` validated only what it decoded, so a body with a broken value where
    ///   another type was expected (`"verify": 1e400`, `"amount": "\x"`) was a 422 about the type,
    ///   and a broken value under a field the type ignores was accepted (the unknown-field check,
    ///   made on `JSONSerialization`'s tree, was skipped for a body it could not read): now 400
    ///   `invalid_json`.
    /// - Not UTF-8: a UTF-16 body (NUL bytes, or a UTF-16 byte order mark) was accepted though the API takes only UTF-8: now 400 `invalid_json`.
    /// - Too deep: a body nested deeper than the limit was answered by whichever check came first
    ///   (an unknown field, a text rule, or "not JSON" past `JSONSerialization`'s own limit): now
    ///   always 400 `too_deep`, found while parsing.
    /// - Inexact integers: `JSONDecoder` read `1.00000000000000000001` as 1 and `1e-400` as 0, and
    ///   refused `9223372036854775.806e3`; integers are now read exactly (a fraction is a 422).
    static func correctedAnswer(_ bytes: [UInt8], new: Outcome, old: Outcome) -> String? {
        if (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) == nil, new.code == "invalid_json" || new.code == "too_deep" {
            return "not JSON"
        }
        if String(validating: bytes, as: UTF8.self) == nil || bytes.contains(0), new.code == "invalid_json" { return "not UTF-8" }
        if new.code == "too_deep", case .refused(400, _, _, _) = old { return "too deep" }
        if let value = try? JSONBodyParser.parse(bytes), hasInexactInteger(value) { return "inexact integer" }
        return nil
    }

    /// Whether `value` holds a number `JSONDecoder` read as another integer than it is (or refused as one).
    static func hasInexactInteger(_ value: JSONValue) -> Bool {
        switch value {
        case .number(let text):
            guard text.contains(where: { ".eE".contains($0) }) else { return false }
            struct Box: Decodable { var value: Int64 }
            let reference = try? JSONDecoder().decode(Box.self, from: Data(#"{"value":\#(text)}"#.utf8)).value
            return reference != JSONNumberLiteral.integer(Int64.self, text)
        case .array(let items): return items.contains(where: hasInexactInteger)
        case .object(let object): return object.members.contains { hasInexactInteger($0.value) }
        case .null, .bool, .string: return false
        }
    }

    /// One corrected answer: what the old path said and what the body path says now.
    static func answers<T: Decodable>(_ type: T.Type, _ method: String, _ path: String, _ bytes: [UInt8]) -> (new: Outcome, old: Outcome) {
        let operation = OpenAPIContract.served.operation(method: method, path: path)
        return (
            Outcome { try bytes.withUnsafeBytes { try JSONCoding.decode(T.self, body: $0, operation: operation) } },
            Outcome { try OldJSONBodyPath.decode(T.self, body: bytes, operation: operation) }
        )
    }

    @Test func aBodyThatIsNotJSONIsA400EvenWhereTheOldDecoderNeverReadTheBrokenPart() {
        // An undeclared field with a value JSONSerialization cannot read slipped past the field check.
        let smuggled = Self.answers(ReviewResolutionRequest.self, "POST", "/v1/transactions/txn_1/resolve", Array(#"{"outcome":"not_charged","extra":1e400}"#.utf8))
        #expect(smuggled.new.code == "invalid_json")
        guard case .decoded = smuggled.old else {
            Issue.record("the oracle no longer shows the old answer")
            return
        }
        // A broken value where a string was expected was a 422 about the type.
        let mistyped = Self.answers(FollowUpAmount.self, "POST", "/v1/transactions/txn_1/refund", Array(#"{"amount":100,"receiptEmail":1e400}"#.utf8))
        #expect(mistyped.new.code == "invalid_json")
        #expect(mistyped.old.code == "invalid_type")
    }

    @Test func aUTF16BodyIsRefusedAsNotUTF8() {
        let body = #"{"outcome":"not_charged"}"#
        var littleEndian: [UInt8] = []
        for unit in body.utf16 { littleEndian += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        let refused = Outcome.refused(status: 400, code: "invalid_json", param: nil, message: "The request body is not valid JSON (or not UTF-8).")
        for bytes in [littleEndian, [0xFF, 0xFE] + littleEndian] {
            let answers = Self.answers(ReviewResolutionRequest.self, "POST", "/v1/transactions/txn_1/resolve", bytes)
            #expect(answers.new == refused)
        }
    }

    @Test func aBodyNestedTooDeepIsAlwaysTooDeepWhateverElseItBreaks() {
        let deep = String(repeating: #"{"a":"#, count: 33) + "1" + String(repeating: "}", count: 33)
        let answers = Self.answers(FollowUpAmount.self, "POST", "/v1/transactions/txn_1/refund", Array(deep.utf8))
        #expect(answers.new == .refused(status: 400, code: "too_deep", param: nil, message: "The body nests deeper than 32 levels."))
        #expect(answers.old.code == "unknown_parameter")
        let deepest = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(Self.answers(FollowUpAmount.self, "POST", "/v1/transactions/txn_1/refund", Array(deepest.utf8)).new.code == "too_deep")
        let limit = String(repeating: "[", count: 33) + String(repeating: "]", count: 33)
        #expect(Self.answers(FollowUpAmount.self, "POST", "/v1/transactions/txn_1/refund", Array(limit.utf8)).new.code == "invalid_type")
    }

    @Test(arguments: ["1e-400", "1.00000000000000000001", "100.5e-1"])
    func anAmountWithAFractionIsNotWholeHoweverItIsWritten(_ literal: String) {
        let answers = Self.answers(FollowUpAmount.self, "POST", "/v1/transactions/txn_1/refund", Array(#"{"amount":\#(literal)}"#.utf8))
        #expect(answers.new == .refused(status: 422, code: "not_minor_units", param: "amount", message: "amount is in minor units: a whole number."))
    }

    @Test(arguments: [("9223372036854775.806e3", Int64(9_223_372_036_854_775_806)), ("1e2", 100), ("0.1e3", 100), ("100.0", 100), ("-0", 0)])
    func aWholeAmountIsReadExactlyHoweverItIsWritten(_ literal: String, _ amount: Int64) throws {
        let decoded = try JSONCoding.decode(FollowUpAmount.self, body: Array(#"{"amount":\#(literal)}"#.utf8), method: "POST", path: "/v1/transactions/txn_1/refund")
        #expect(decoded.amount == amount)
    }

    @Test func everyRouteHasADocumentedOperationAndItsGoodBodiesDecode() {
        for route in Self.routes {
            #expect(route.operation != nil, "\(route.method) \(route.path)")
            for body in route.good {
                let (new, old) = route.compare(Array(body.utf8), route.operation)
                guard case .decoded = new else {
                    Issue.record("\(route.method) \(route.path): a good body was refused: \(new)")
                    continue
                }
                #expect(new == old, "\(route.method) \(route.path)")
            }
        }
    }

    @Test func mutatedBodiesGetTheOldAnswers() {
        var compared = 0
        for route in Self.routes {
            let operation = route.operation
            for good in route.good {
                let bodies = RequestBodyCorpus.mutations(of: good).map { Array($0.utf8) } + RequestBodyCorpus.byteMutations(of: good)
                for bytes in bodies {
                    compared += 1
                    let (new, old) = route.compare(bytes, operation)
                    if new != old, Self.correctedAnswer(bytes, new: new, old: old) == nil {
                        Issue.record("\(route.method) \(route.path) body #\(compared) (\(bytes.count) bytes): new \(new), old \(old)")
                    }
                }
            }
        }
        #expect(compared > 5000)
    }

    @Test func randomlyDamagedBodiesGetTheOldAnswers() async {
        let edits = zip(Gen.int(in: 0...(Self.routes.count - 1)), Gen.int(in: 0...3), Gen.int(in: 0...10_000), Gen.int(in: 0...255)).array(of: 1...4)
        await propertyCheck(count: 3000, input: edits) { edits in
            let route = Self.routes[edits[0].0]
            var bytes = Array(route.good[0].utf8)
            for (_, kind, position, byte) in edits {
                let at = bytes.isEmpty ? 0 : position % bytes.count
                switch kind {
                case 0: if !bytes.isEmpty { bytes[at] = UInt8(byte) }
                case 1: bytes.insert(UInt8(byte), at: at)
                case 2: if !bytes.isEmpty { bytes.remove(at: at) }
                default: bytes.insert(contentsOf: Array(#""k":1,"#.utf8), at: at)
                }
            }
            let (new, old) = route.compare(bytes, route.operation)
            if new != old, Self.correctedAnswer(bytes, new: new, old: old) == nil {
                Issue.record("\(route.method) \(route.path) (\(bytes.count) bytes): new \(new), old \(old)")
            }
        }
    }
}
