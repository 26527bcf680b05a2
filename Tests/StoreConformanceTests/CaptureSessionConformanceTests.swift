import Foundation
import Scheduler
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// Capture sessions on the run's engine: a session is spent by one card however many submissions
/// arrive at once on however many servers; a transition applies only from its status (and, for a
/// claim, before expiry), writing its audit event only then; a row reads back as written.
@Suite("Store conformance: capture sessions are single use")
struct CaptureSessionConformanceTests {
    static func sessions(_ fixture: StoreFixture, store: any VaultStorage, keyring: Keyring) -> CaptureSessionService {
        CaptureSessionService(
            store: store, cards: SecureCardService(store: store, keyring: keyring, verifier: StoreFixture.NoVerification()), keyring: keyring)
    }

    static func request(_ reference: String) -> NewCaptureSession {
        NewCaptureSession(
            merchantReference: reference, allowedOrigin: "https://shop.example", customer: Customer(email: "ada@example.com"), verify: false)
    }

    static func keyed(_ number: String) -> CardSource {
        CardSource(method: "keyed", card: CardInput(number: number, expiryDate: "1230", cvv: "123"))
    }

    @Test func ofManySubmissionsOfOneSessionOnTwoServersAtOnceOneRegistersItsCard() async throws {
        let fixture = try await StoreFixture()
        let first = Self.sessions(fixture, store: fixture.store, keyring: fixture.keyring)
        let (session, secret) = try await first.create(Self.request("cap-1"), merchant: fixture.merchant, actor: "apikey:k")
        let numbers = ["4242424242424242", "5555555555554444", "4111111111111111", "6011111111111117"]
        let outcomes = try await fixture.withAnotherStore { second in
            let other = Self.sessions(fixture, store: second, keyring: Keyring(masterKeys: fixture.ring, store: second))
            return try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<8 {
                    let service = index % 2 == 0 ? first : other
                    group.addTask {
                        do {
                            let admitted = try await service.admit(clientSecret: secret, sessionID: session.id)
                            return try await service.submit(admitted, source: Self.keyed(numbers[index % numbers.count])).secureCardReference
                        } catch CaptureSessionError.refused {
                            return "refused"
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(outcomes.filter { $0 != "refused" }.count == 1, "\(outcomes)")
        #expect(try await fixture.count("SELECT count(*) AS n FROM secure_cards WHERE merchant_reference = 'cap-1'") == 1)
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE action = 'capture_session.completed'") == 1)
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE action = 'secure_card.registered' AND actor LIKE 'capture_session:%'") == 1)
        let stored = try #require(try await fixture.store.captureSession(id: session.id))
        #expect(stored.session.status == .completed)
        #expect(stored.session.card?.secureCardReference == outcomes.first { $0 != "refused" })
    }

    @Test func aTransitionAppliesOnlyFromItsStatusAndAClaimOnlyBeforeExpiry() async throws {
        let fixture = try await StoreFixture()
        let service = Self.sessions(fixture, store: fixture.store, keyring: fixture.keyring)
        let (session, _) = try await service.create(Self.request("cap-2"), merchant: fixture.merchant, actor: "apikey:k")
        let card = CaptureSessionCard(secureCardReference: "sc_x", maskedNumber: "424242******4242", cardType: .visa)
        let now = Date()
        #expect(try await fixture.store.applyCaptureSessionTransition(.complete(session, card: card, at: now)) == false)
        #expect(try await fixture.store.applyCaptureSessionTransition(.release(session, final: true, reason: "test", at: now)) == false)
        #expect(try await fixture.store.applyCaptureSessionTransition(.claim(session, at: session.expiresAt)) == false, "expired at its expiry")
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE action LIKE 'capture_session.%' AND action <> 'capture_session.created'") == 0)
        #expect(try await fixture.store.captureSession(id: session.id)?.session.status == .open)

        #expect(try await fixture.store.applyCaptureSessionTransition(.claim(session, at: now)) == true)
        #expect(try await fixture.store.applyCaptureSessionTransition(.claim(session, at: now)) == false, "a claimed session is claimed once")
        #expect(try await fixture.store.applyCaptureSessionTransition(.release(session, final: false, reason: "test", at: now)) == true)
        let reopened = try #require(try await fixture.store.captureSession(id: session.id))
        #expect(reopened.session.status == .open)
        #expect(reopened.session.attempts == 1)
        #expect(try await fixture.store.applyCaptureSessionTransition(.claim(session, at: now)) == true)
        #expect(try await fixture.store.applyCaptureSessionTransition(.complete(session, card: card, at: now)) == true)
        let completed = try #require(try await fixture.store.captureSession(id: session.id))
        #expect(completed.session.status == .completed)
        #expect(completed.session.card == card)
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE action = 'capture_session.completed'") == 1)
    }

    @Test func aStoredSessionReadsBackAsWrittenWithItsDetailsSealed() async throws {
        let fixture = try await StoreFixture()
        let service = Self.sessions(fixture, store: fixture.store, keyring: fixture.keyring)
        let (session, secret) = try await service.create(Self.request("cap-3"), merchant: fixture.merchant, actor: "apikey:k")
        let stored = try #require(try await fixture.store.captureSession(id: session.id))
        #expect(stored.session == session)
        #expect(stored.secretMAC.count == 32)
        #expect(!stored.sealedDetails.isEmpty)
        let dump = try await fixture.sql.everyRowAsText()
        #expect(!dump.contains("ada@example.com"), "the customer is sealed")
        #expect(!dump.contains(String(secret.split(separator: "_").last ?? "")), "only a MAC of the secret is stored")
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE action = 'capture_session.created'") == 1)
    }
}
