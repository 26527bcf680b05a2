import AsyncHTTPClient
import Foundation
import Scheduler
import Testing
import Vault

/// Cards, amounts and requests for gateway tests. Test card numbers are public test numbers,
/// and still never printed: failures report masked text only.
enum GatewayFixtures {
    /// A card number, validated (trapping on a typo in the test itself).
    static func pan(_ digits: String) -> PrimaryAccountNumber {
        do {
            return try PrimaryAccountNumber(validating: digits)
        } catch {
            fatalError("invalid test card number ending \(digits.suffix(4))")
        }
    }

    /// December 2030.
    static let expiry: CardExpiry = {
        do { return try CardExpiry(month: 12, year: 2030) } catch { fatalError("bad test expiry") }
    }()

    /// A Visa test card (4111 1111 1111 1111) unless another number is given.
    static func card(_ digits: String = "4111111111111111", cvv: String? = nil, zip: String? = nil,
                     holder: String? = nil) -> PaymentCard {
        let number = pan(digits)
        let code = cvv.map { value -> CardVerificationValue in
            do { return try CardVerificationValue(validating: value, brand: number.brand) } catch { fatalError("bad test CVV") }
        }
        return PaymentCard(pan: number, expiry: expiry, holderName: holder, cvv: code, postalCode: zip)
    }

    /// An amount in minor units of a currency.
    static func money(_ minorUnits: Int64, _ code: String = "USD") -> Money {
        do { return Money(minorUnits: minorUnits, currency: try Currency(code: code)) } catch { fatalError("bad currency") }
    }

    /// A charge request.
    static func charge(_ key: String, reference: String, amount: Money = money(1_234), card: PaymentCard = card(),
                       description: String? = nil) -> ChargeRequest {
        ChargeRequest(idempotencyKey: key, reference: reference, amount: amount, card: card, description: description)
    }

    /// A follow-up request.
    static func followUp(_ key: String, reference: String, transactionID: String?, amount: Money? = nil,
                         card: PaymentCard? = nil) -> FollowUpRequest {
        FollowUpRequest(idempotencyKey: key, reference: reference, gatewayTransactionID: transactionID ?? "missing",
                        amount: amount, card: card)
    }

    /// `text` with every run of 12 or more digits masked, for failure messages.
    static func redacted(_ text: String) -> String {
        var out = ""
        var digits = ""
        func flush() {
            out += digits.count >= 12 ? String(repeating: "#", count: digits.count) : digits
            digits = ""
        }
        for character in text {
            if character.isNumber { digits.append(character) } else { flush(); out.append(character) }
        }
        flush()
        return out
    }

    /// Everything a value prints in any way: description, debug description and dump.
    static func allRenderings(of value: Any) -> String {
        var dumped = ""
        dump(value, to: &dumped)
        return String(describing: value) + "\n" + String(reflecting: value) + "\n" + dumped
    }
}

/// Records an issue when bytes sent differ from a fixture, showing both with digits masked.
func expectSameRequest(_ actual: [UInt8], _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) {
    guard actual != Array(expected.utf8) else { return }
    let sent = GatewayFixtures.redacted(String(decoding: actual, as: UTF8.self))
    Issue.record("request differs from the fixture:\nsent:     \(sent)\nexpected: \(GatewayFixtures.redacted(expected))",
                 sourceLocation: sourceLocation)
}

/// Records an issue when `haystack` contains `needle`, without printing either.
func expectAbsent(_ needle: String, in haystack: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
    if haystack.contains(needle) {
        Issue.record("\(what) contains a secret or card data", sourceLocation: sourceLocation)
    }
}

/// An HTTP client that fails a connection attempt at once instead of retrying until the
/// deadline, and like every gateway client never follows redirects; shut down by the caller.
func makeNoRetryHTTPClient() -> HTTPClient {
    var configuration = GatewayRegistry.clientConfiguration()
    configuration.connectionPool.retryConnectionEstablishment = false
    return HTTPClient(configuration: configuration)
}

/// A loopback port that refuses connections for as long as this value lives: a TCP socket bound
/// to 127.0.0.1 but never listening. Unlike a port whose server was stopped, nothing else can
/// start listening on it while the test runs.
final class RefusingPort: Sendable {
    let port: Int
    private let descriptor: Int32

    init() {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// `http://127.0.0.1:PORT`.
    var baseURL: String { "http://127.0.0.1:\(port)" }

    deinit { close(descriptor) }
}
