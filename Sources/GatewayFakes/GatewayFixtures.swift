import AsyncHTTPClient
import Foundation
import Logging
import Payments
import Vault

/// Cards, amounts and requests for gateway tests. Test card numbers are public test numbers,
/// and still never printed: failures report masked text only.
enum GatewayFixtures {
    /// The adapters' logger in tests: the tests that provoke in-doubt answers would otherwise print
    /// a warning line for each; the logging tests pass a logger of their own and read it.
    static let quietLogger = Logger(label: "vault.test.gateway") { _ in SwiftLogNoOpLogHandler() }

    /// Runs `body` with NMI's fake and an adapter pointed at it; the fake is stopped afterwards,
    /// whether `body` throws or not.
    static func withNMI(_ body: (FakeNMIServer, NMIGateway) async throws -> Void) async throws {
        let fake = try await FakeNMIServer.start()
        do {
            try await body(fake, NMIGateway(securityKey: FakeNMIServer.securityKey, baseURL: fake.baseURL, logger: quietLogger))
        } catch {
            await fake.stop()
            throw error
        }
        await fake.stop()
    }

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

/// An HTTP client that fails a connection attempt at once instead of retrying until the
/// deadline, and like every gateway client never follows redirects; shut down by the caller.
func makeNoRetryHTTPClient() -> HTTPClient {
    var configuration = GatewayRegistry.clientConfiguration()
    configuration.connectionPool.retryConnectionEstablishment = false
    return HTTPClient(configuration: configuration)
}
