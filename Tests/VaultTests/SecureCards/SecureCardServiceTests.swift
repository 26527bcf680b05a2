import Foundation
import PropertyBased
import Synchronization
import Testing
@testable import Vault
import Scheduler
import StorageTestSupport
import VaultSQLite

/// Verification at the edge of the world: approves everything, or declines everything.
struct StubVerifier: CardVerifier {
    var decline = false

    func verify(_ card: CapturedCard, merchant: Merchant, secureCardReference: String) async -> CardVerificationResult {
        decline
            ? .declined(code: "card_declined", category: "hard")
            : .verified(CardVerificationRecord(status: "verified", gateway: "stub", transactionId: "t-" + secureCardReference, avsResult: nil, cvvResult: nil, verifiedAt: Date()))
    }
}

extension VaultFixture {
    func cards(decline: Bool = false) -> SecureCardService {
        SecureCardService(store: store, keyring: keyring, verifier: StubVerifier(decline: decline))
    }
}

func registration(_ reference: String, pan: String, expiry: String = "1230") -> SecureCardRegistration {
    SecureCardRegistration(
        merchantReference: reference,
        source: CardSource(method: "keyed", card: CardInput(number: pan, expiryDate: expiry, holderName: "Grace Hopper", cvv: nil)),
        customer: Customer(email: "grace@example.com", country: "US"), verify: false)
}

@Suite struct SecureCardServiceTests {
    static let prefixes = ["4", "51", "55", "2221", "2720", "34", "37", "6011", "65", "3530", "36", "62", "2200"]
    static let lengths: [String: Int] = ["34": 15, "37": 15, "36": 14]

    static func luhnComplete(_ payload: String) -> String {
        var sum = 0
        for (offset, character) in payload.reversed().enumerated() {
            var digit = character.wholeNumberValue ?? 0
            if offset % 2 == 0 {
                digit *= 2
                if digit > 9 { digit -= 9 }
            }
            sum += digit
        }
        return payload + String((10 - sum % 10) % 10)
    }

    @Test func luhnValidGeneratedPANsRoundTripThroughRegisterAndRetrieve() async throws {
        let fixture = try await VaultFixture()
        let (merchant, _) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let service = fixture.cards()
        let counter = Counter()
        await propertyCheck(count: 60, input: Gen.int(in: 0...(Self.prefixes.count - 1)), Gen.int(in: 0...9).array(of: 18)) { index, digits in
            let prefix = Self.prefixes[index]
            let length = Self.lengths[prefix] ?? 16
            let body = prefix + digits.prefix(length - 1 - prefix.count).map(String.init).joined()
            let pan = Self.luhnComplete(body)
            let reference = "gen-\(counter.next())"
            do {
                let registered = try await service.register(registration(reference, pan: pan), merchant: merchant, actor: "test")
                let retrieved = try await service.retrieve(merchantReference: reference, merchant: merchant)
                #expect(retrieved.reference == registered.reference)
                #expect(retrieved.bin == String(pan.prefix(6)))
                #expect(retrieved.last4 == String(pan.suffix(4)))
                #expect(retrieved.maskedNumber.count == pan.count)
                #expect(retrieved.holderName == "Grace Hopper")
                #expect(retrieved.customer?.email == "grace@example.com")
                #expect(retrieved.fingerprint == registered.fingerprint)
                let charge = try await service.cardForCharge(reference: registered.reference, merchantID: merchant.id)
                #expect(charge.pan.digits == pan)
            } catch {
                Issue.record("a Luhn-valid \(prefix)… PAN of length \(pan.count) was refused: \(error)")
            }
        }
    }

    @Test func theSamePANGetsTheSameFingerprintUnderOneMerchant() async throws {
        let fixture = try await VaultFixture()
        let (merchant, _) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let service = fixture.cards()
        let first = try await service.register(registration("a", pan: "4242424242424242"), merchant: merchant, actor: "test")
        let second = try await service.register(registration("b", pan: "4242 4242 4242 4242"), merchant: merchant, actor: "test")
        let other = try await service.register(registration("c", pan: "5555555555554444"), merchant: merchant, actor: "test")
        #expect(first.fingerprint == second.fingerprint)
        #expect(first.fingerprint != other.fingerprint)
    }

    @Test func aDeclinedVerificationStoresNothing() async throws {
        let fixture = try await VaultFixture()
        let (merchant, _) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        var request = registration("a", pan: "4000000000000002")
        request.verify = true
        await #expect(throws: SecureCardError.verificationDeclined(code: "card_declined", category: "hard")) {
            _ = try await fixture.cards(decline: true).register(request, merchant: merchant, actor: "test")
        }
        #expect(try await fixture.store.secureCards(merchantID: merchant.id, query: .init(includeDeleted: true)).isEmpty)
    }

    @Test func anExpiredCardIsRefusedInTheMerchantsTimeZone() async throws {
        let fixture = try await VaultFixture()
        let (merchant, _) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(timeZone: "Pacific/Kiritimati"), actor: "test")
        // 2027-01-31 10:30 UTC is already 2027-02-01 in Kiritimati (UTC+14): a 01/27 card has expired there.
        let now = Date(timeIntervalSince1970: 1_801_391_400)
        await #expect(throws: CardDataError.self) {
            _ = try await fixture.cards().register(registration("a", pan: "4242424242424242", expiry: "0127"), merchant: merchant, actor: "test", now: now)
        }
        let (london, _) = try await fixture.merchants.create(name: "london", role: .admin, settings: .init(timeZone: "Europe/London"), actor: "test")
        _ = try await fixture.cards().register(registration("a", pan: "4242424242424242", expiry: "0127"), merchant: london, actor: "test", now: now)
    }

    /// SQLite: the database file after closing; PostgreSQL: every row of every table as text.
    @Test func aRegisteredCardNumberIsNeverStoredInClear() async throws {
        let fixture = try await VaultFixture()
        let (merchant, _) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let service = fixture.cards()
        let card = try await service.register(registration("leak-1", pan: "4000056655665556"), merchant: merchant, actor: "test")
        #expect(try await service.retrieve(reference: card.reference, merchant: merchant).holderName == "Grace Hopper")
        #expect(try await !fixture.storedDataContains("4000056655665556", closingFirst: true))
    }

    /// The scan above would see a card number stored in clear (it is not blind on either engine).
    @Test func theStoredDataScanFindsACardNumberWrittenInClear() async throws {
        let fixture = try await VaultFixture()
        let (merchant, _) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let card = try await fixture.cards().register(registration("leak-1", pan: "4000056655665556"), merchant: merchant, actor: "test")
        try await fixture.sql.run("UPDATE secure_cards SET merchant_reference = \("4000056655665556") WHERE id = \(card.reference)")
        #expect(try await fixture.storedDataContains("4000056655665556", closingFirst: true))
    }

    @Test func aSealedCardMovedToAnotherRowNoLongerOpens() async throws {
        let fixture = try await VaultFixture()
        let (merchant, _) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let service = fixture.cards()
        let a = try await service.register(registration("a", pan: "4242424242424242"), merchant: merchant, actor: "test")
        _ = try await service.register(registration("b", pan: "5555555555554444"), merchant: merchant, actor: "test")
        try await fixture.sql.run(
            """
            UPDATE secure_cards SET sealed_card = (SELECT sealed_card FROM secure_cards WHERE id = \(a.reference))
                WHERE merchant_reference = 'b'
            """)
        await #expect(throws: SecureCardError.integrityFailed) {
            _ = try await service.retrieve(merchantReference: "b", merchant: merchant)
        }
    }

    @Test func dataKeyRotationReencryptsEveryCardAndKeepsThemReadable() async throws {
        let fixture = try await VaultFixture()
        let (merchant, _) = try await fixture.merchants.create(
            name: "acme", role: .admin, settings: .init(gateway: "nmi", gatewayCredentials: ["security_key": "k"]), actor: "test")
        let service = fixture.cards()
        var tokens: [String] = []
        for index in 0..<7 {
            tokens.append(try await service.register(registration("r\(index)", pan: "4242424242424242"), merchant: merchant, actor: "test").reference)
        }
        let version = try await fixture.merchants.rotateDataKey(merchantID: merchant.id, actor: "test")
        #expect(version == 2)
        let fresh = try await service.register(registration("new", pan: "5555555555554444"), merchant: merchant, actor: "test")
        #expect(fresh.keyVersion == 2)
        #expect(try await service.retrieve(merchantReference: "r0", merchant: merchant).keyVersion == 1)
        #expect(try await service.resealAll(merchantID: merchant.id, batchSize: 3) == 7)
        for (index, token) in tokens.enumerated() {
            let card = try await service.retrieve(reference: token, merchant: merchant)
            #expect(card.keyVersion == 2)
            #expect(card.merchantReference == "r\(index)")
            #expect(try await service.cardForCharge(reference: token, merchantID: merchant.id).pan.digits == "4242424242424242")
        }
        #expect(try await fixture.merchants.gatewayCredentials(merchantID: merchant.id) == ["security_key": "k"])
        #expect(try await service.resealAll(merchantID: merchant.id) == 0)
    }

    @Test func updatesMergeCustomerFieldsAndNullClears() async throws {
        let fixture = try await VaultFixture()
        let (merchant, _) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let service = fixture.cards()
        let original = try await service.register(registration("a", pan: "4242424242424242"), merchant: merchant, actor: "test")
        let merged = try await service.update(
            merchantReference: "a", with: SecureCardUpdate(customer: .set(CustomerUpdate(setting: Customer(city: "Arlington")))), merchant: merchant, actor: "test")
        #expect(merged.customer == Customer(email: "grace@example.com", city: "Arlington", country: "US"))
        #expect(merged.reference == original.reference)
        let oneCleared = try await service.update(
            merchantReference: "a", with: SecureCardUpdate(customer: .set(CustomerUpdate(country: .clear))), merchant: merchant, actor: "test")
        #expect(oneCleared.customer == Customer(email: "grace@example.com", city: "Arlington"))
        let cleared = try await service.update(merchantReference: "a", with: SecureCardUpdate(customer: .clear), merchant: merchant, actor: "test")
        #expect(cleared.customer == nil)
        #expect(cleared.holderName == "Grace Hopper")
    }
}

/// A thread-safe counter for unique references inside property checks.
final class Counter: Sendable {
    private let value = Mutex(0)

    func next() -> Int { value.withLock { $0 += 1; return $0 } }
}

