import Foundation
import Scheduler
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// Operators and console sessions on the run's engine: a sign-in needs the password and a fresh
/// code, a code opens one session however many sign-ins race with it, failed sign-ins lock the
/// account, sessions end when idle, at their absolute end, on sign-out and when the operator is
/// disabled or reset, and every step is an audit event naming the operator.
@Suite("Store conformance: operators and console sessions")
struct OperatorConformanceTests {
    static let password = "blue kettle harbour"
    static let policy = ConsolePolicy(lockoutAttempts: 3, lockoutMinutes: 30, idleMinutes: 15, absoluteHours: 12)
    /// A fixed instant in the middle of a TOTP step.
    static let start = Date(timeIntervalSince1970: 1_800_000_015)

    static func service(_ fixture: StoreFixture, store: (any VaultStorage)? = nil, keyring: Keyring? = nil) -> OperatorService {
        OperatorService(store: store ?? fixture.store, keyring: keyring ?? fixture.keyring, policy: policy, passwordCost: .minimum)
    }

    static func code(_ enrollment: OperatorService.Enrollment, at instant: Date) throws -> String {
        TOTP.code(secret: try Encoding.fromBase32(enrollment.secret), step: TOTP.step(at: instant))
    }

    @Test func anOperatorReadsBackAsCreatedWithItsSecretSealedAndANameIsTakenOnce() async throws {
        let fixture = try await StoreFixture()
        let operators = Self.service(fixture)
        let (created, enrollment) = try await operators.create(
            name: "ada", role: .support, merchantNames: ["m"], password: Self.password, actor: "cli", now: Self.start)
        #expect(created.id.hasPrefix("op_"))
        #expect(enrollment.uri.hasPrefix("otpauth://totp/Vault%3Aada?secret=\(enrollment.secret)&"))
        let stored = try #require(try await fixture.store.operatorRow(named: "ada"))
        #expect(stored.account == created)
        #expect(stored.account.merchantIDs == [fixture.merchantID])
        #expect(stored.passwordHash.hasPrefix("$argon2id$"))
        let secret = try Encoding.fromBase32(enrollment.secret)
        #expect(!stored.sealedSecret.isEmpty && stored.sealedSecret.count > secret.count)
        #expect(try fixture.keyring.openOperatorSecret(stored.sealedSecret, operatorID: created.id, binding: stored.binding) == secret)
        #expect(throws: CryptoError.self) { try fixture.keyring.openOperatorSecret(stored.sealedSecret, operatorID: "op_other", binding: stored.binding) }

        await #expect(throws: OperatorError.nameTaken("ada")) {
            try await operators.create(name: "ada", role: .admin, merchantNames: [], password: "another long secret", actor: "cli")
        }
        await #expect(throws: OperatorError.unknownMerchant("nobody")) {
            try await operators.create(name: "bob", role: .admin, merchantNames: ["nobody"], password: Self.password, actor: "cli")
        }
        await #expect(throws: OperatorError.weakPassword(.common)) {
            try await operators.create(name: "bob", role: .admin, merchantNames: [], password: "Password1234", actor: "cli")
        }
        await #expect(throws: OperatorError.invalidName) {
            try await operators.create(name: "bob smith", role: .admin, merchantNames: [], password: Self.password, actor: "cli")
        }
        #expect(try await operators.list().map(\.name) == ["ada"])
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE action = 'operator.created' AND actor = 'cli'") == 1)
    }

    @Test func aSignInNeedsThePasswordAndTheCodeAndTheCodeIsAcceptedOnce() async throws {
        let fixture = try await StoreFixture()
        let operators = Self.service(fixture)
        let (account, enrollment) = try await operators.create(
            name: "ada", role: .readonly, merchantNames: [], password: Self.password, actor: "cli", now: Self.start)
        let code = try Self.code(enrollment, at: Self.start)
        let wrongCode = code == "000000" ? "111111" : "000000"
        await #expect(throws: OperatorError.signInRefused) { try await operators.signIn(name: "ada", password: Self.password, code: wrongCode, now: Self.start) }
        await #expect(throws: OperatorError.signInRefused) { try await operators.signIn(name: "ada", password: "not the password", code: code, now: Self.start) }
        await #expect(throws: OperatorError.signInRefused) { try await operators.signIn(name: "nobody", password: Self.password, code: code, now: Self.start) }
        #expect(try await fixture.count("SELECT count(*) AS n FROM console_sessions") == 0)

        let signedIn = try await operators.signIn(name: "ada", password: Self.password, code: code, now: Self.start)
        #expect(signedIn.account.id == account.id)
        #expect(ConsoleSessionToken.isWellFormed(signedIn.token))
        #expect(try await fixture.count("SELECT count(*) AS n FROM console_sessions WHERE token_hash = \(ConsoleSessionToken.hash(signedIn.token))") == 1)
        #expect(try await fixture.count("SELECT count(*) AS n FROM console_sessions WHERE token_hash = \(signedIn.token)") == 0, "only the hash is stored")
        // The same code again, even a second later in the same step, is refused; so is the previous step's.
        await #expect(throws: OperatorError.signInRefused) {
            try await operators.signIn(name: "ada", password: Self.password, code: code, now: Self.start.addingTimeInterval(1))
        }
        await #expect(throws: OperatorError.signInRefused) {
            try await operators.signIn(
                name: "ada", password: Self.password, code: try Self.code(enrollment, at: Self.start.addingTimeInterval(-30)), now: Self.start)
        }
        // The next step's code is fresh.
        let next = Self.start.addingTimeInterval(30)
        _ = try await operators.signIn(name: "ada", password: Self.password, code: try Self.code(enrollment, at: next), now: next)
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE action = 'operator.signed_in' AND actor = 'operator:ada'") == 2)
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE action = 'operator.sign_in_failed'") == 5)
    }

    @Test func ofManySignInsWithOneCodeOnTwoServersAtOnceOneOpensASession() async throws {
        let fixture = try await StoreFixture()
        let first = Self.service(fixture)
        let (_, enrollment) = try await first.create(name: "ada", role: .admin, merchantNames: [], password: Self.password, actor: "cli")
        let now = Date()
        let code = try Self.code(enrollment, at: now)
        let opened = try await fixture.withAnotherStore { second in
            let other = Self.service(fixture, store: second, keyring: Keyring(masterKeys: fixture.ring, store: second))
            return try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<6 {
                    let service = index % 2 == 0 ? first : other
                    group.addTask {
                        do {
                            _ = try await service.signIn(name: "ada", password: Self.password, code: code, now: now)
                            return 1
                        } catch OperatorError.signInRefused {
                            return 0
                        }
                    }
                }
                return try await group.reduce(0, +)
            }
        }
        #expect(opened == 1)
        #expect(try await fixture.count("SELECT count(*) AS n FROM console_sessions") == 1)
    }

    @Test func failedSignInsInARowLockTheAccountForThePeriodEvenAgainstTheRightPasswordAndCode() async throws {
        let fixture = try await StoreFixture()
        let operators = Self.service(fixture)
        let (_, enrollment) = try await operators.create(name: "ada", role: .support, merchantNames: [], password: Self.password, actor: "cli")
        var now = Self.start
        for _ in 0..<Self.policy.lockoutAttempts {
            await #expect(throws: OperatorError.signInRefused) {
                try await operators.signIn(name: "ada", password: "wrong password!", code: try Self.code(enrollment, at: now), now: now)
            }
        }
        let locked = try #require(try await fixture.store.operatorRow(named: "ada")).account
        #expect(locked.isLocked(at: now))
        #expect(locked.lockedUntil == now.addingTimeInterval(30 * 60))
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE action = 'operator.locked'") == 1)

        now = now.addingTimeInterval(29 * 60)
        await #expect(throws: OperatorError.signInRefused) {
            try await operators.signIn(name: "ada", password: Self.password, code: try Self.code(enrollment, at: now), now: now)
        }
        #expect(try await fixture.count("SELECT count(*) AS n FROM console_sessions") == 0)
        now = now.addingTimeInterval(61)
        _ = try await operators.signIn(name: "ada", password: Self.password, code: try Self.code(enrollment, at: now), now: now)
        #expect(try #require(try await fixture.store.operatorRow(named: "ada")).account.failedSignIns == 0)

        // Failures short of the limit are forgotten by a success.
        let later = now.addingTimeInterval(60)
        for _ in 0..<(Self.policy.lockoutAttempts - 1) {
            _ = try? await operators.signIn(name: "ada", password: "wrong password!", code: "123456", now: later)
        }
        _ = try await operators.signIn(name: "ada", password: Self.password, code: try Self.code(enrollment, at: later), now: later)
        #expect(try #require(try await fixture.store.operatorRow(named: "ada")).account.failedSignIns == 0)
    }

    @Test func aSessionEndsWhenIdleAtItsAbsoluteEndOnSignOutAndWhenItsOperatorIsDisabledOrReset() async throws {
        let fixture = try await StoreFixture()
        let operators = Self.service(fixture)
        let (_, enrollment) = try await operators.create(name: "ada", role: .admin, merchantNames: [], password: Self.password, actor: "cli")
        var step = 0
        func signIn(at instant: Date) async throws -> String {
            step += 1
            let at = instant.addingTimeInterval(Double(step) * 30)
            return try await operators.signIn(name: "ada", password: Self.password, code: try Self.code(enrollment, at: at), now: at).token
        }

        // Idle: used within 15 minutes it lives on; after 15 minutes without a request it is gone.
        let idle = try await signIn(at: Self.start)
        let signedInAt = Self.start.addingTimeInterval(30)
        #expect(try await operators.session(token: idle, now: signedInAt.addingTimeInterval(14 * 60)) != nil)
        #expect(try await operators.session(token: idle, now: signedInAt.addingTimeInterval(28 * 60)) != nil)
        #expect(try await operators.session(token: idle, now: signedInAt.addingTimeInterval(43 * 60 + 1)) == nil)
        #expect(try await operators.session(token: idle, now: signedInAt.addingTimeInterval(44 * 60)) == nil, "deleted, not revived")

        // Absolute: kept active every 10 minutes, it still ends 12 hours after sign-in.
        let active = try await signIn(at: Self.start)
        let activeSince = Self.start.addingTimeInterval(60)
        var now = activeSince
        while now < activeSince.addingTimeInterval(12 * 3600 - 600) {
            now = now.addingTimeInterval(600)
            #expect(try await operators.session(token: active, now: now) != nil)
        }
        #expect(try await operators.session(token: active, now: activeSince.addingTimeInterval(12 * 3600)) == nil)

        // Sign-out deletes it, with an audit event.
        let out = try await signIn(at: Self.start)
        let (account, _) = try #require(try await operators.session(token: out, now: Self.start.addingTimeInterval(90)))
        try await operators.signOut(token: out, account: account)
        #expect(try await operators.session(token: out, now: Self.start.addingTimeInterval(91)) == nil)
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE action = 'operator.signed_out' AND actor = 'operator:ada'") == 1)

        // Disable ends every session; a reset re-enables with a new secret, and the old one's codes fail.
        let disabledSession = try await signIn(at: Self.start)
        #expect(try await operators.disable(name: "ada", actor: "cli", now: Self.start) == true)
        #expect(try await operators.disable(name: "ada", actor: "cli", now: Self.start) == false)
        #expect(try await operators.session(token: disabledSession, now: Self.start.addingTimeInterval(150)) == nil)
        let at = Self.start.addingTimeInterval(600)
        await #expect(throws: OperatorError.signInRefused) {
            try await operators.signIn(name: "ada", password: Self.password, code: try Self.code(enrollment, at: at), now: at)
        }
        let (reset, renewed) = try await operators.reset(name: "ada", password: "a new long passphrase", actor: "cli", now: at)
        #expect(reset.status == .active && reset.failedSignIns == 0 && reset.lockedUntil == nil)
        await #expect(throws: OperatorError.signInRefused) {
            try await operators.signIn(name: "ada", password: Self.password, code: try Self.code(renewed, at: at), now: at)
        }
        _ = try await operators.signIn(name: "ada", password: "a new long passphrase", code: try Self.code(renewed, at: at), now: at)
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE action IN ('operator.disabled', 'operator.reset') AND actor = 'cli'") == 2)
    }

    @Test func aForgedOrUnknownSessionTokenOpensNothing() async throws {
        let fixture = try await StoreFixture()
        let operators = Self.service(fixture)
        #expect(try await operators.session(token: ConsoleSessionToken.make()) == nil)
        #expect(try await operators.session(token: "cs_short") == nil)
        #expect(try await operators.session(token: "") == nil)
    }

    @Test func anOperatorsSealedSecretNeverHoldsBackTheDestructionOfAMerchantsOldDataKey() async throws {
        let fixture = try await StoreFixture()
        // Sealed under KEK version 1: its header reads "1", like a record sealed under data key 1.
        _ = try await Self.service(fixture).create(name: "ada", role: .admin, merchantNames: [], password: Self.password, actor: "cli")
        #expect(try await fixture.merchants.rotateDataKey(merchantID: fixture.merchantID, actor: "test") == 2)
        #expect(try await fixture.cards.resealAll(merchantID: fixture.merchantID) == 1)
        #expect(try await fixture.merchants.destroySupersededDataKeys(merchantID: fixture.merchantID, actor: "test") == [1])
    }

    @Test func anOperatorRowEditedInTheDatabaseNeitherSignsInNorKeepsItsSession() async throws {
        let fixture = try await StoreFixture()
        let operators = Self.service(fixture)
        let (viewer, enrollment) = try await operators.create(
            name: "viewer", role: .readonly, merchantNames: ["m"], password: Self.password, actor: "cli", now: Self.start)
        let token = try await operators.signIn(name: "viewer", password: Self.password, code: try Self.code(enrollment, at: Self.start), now: Self.start).token
        #expect(try await operators.session(token: token, now: Self.start) != nil)

        // An insider raises the role: the session stops working and the next sign-in is refused.
        #expect(try await fixture.sql.run("UPDATE operators SET role = 'admin' WHERE id = \(viewer.id)") == 1)
        #expect(try await operators.session(token: token, now: Self.start.addingTimeInterval(1)) == nil)
        let later = Self.start.addingTimeInterval(60)
        await #expect(throws: OperatorError.signInRefused) {
            try await operators.signIn(name: "viewer", password: Self.password, code: try Self.code(enrollment, at: later), now: later)
        }
        #expect(try await fixture.sql.run("UPDATE operators SET role = 'readonly' WHERE id = \(viewer.id)") == 1)

        // Every merchant instead of one, or a password hash the insider knows: the same.
        let known = try OperatorPassword.hash("an insider's password", cost: .minimum)
        let edits: [SQLiteQuery] = [
            "UPDATE operators SET merchant_ids = NULL WHERE name = 'viewer'", "UPDATE operators SET password_hash = \(known) WHERE name = 'viewer'",
        ]
        for (index, edit) in edits.enumerated() {
            let original = try #require(try await fixture.store.operatorRow(named: "viewer"))
            #expect(try await fixture.sql.run(edit) == 1)
            let at = later.addingTimeInterval(Double(index + 1) * 120)
            await #expect(throws: OperatorError.signInRefused) {
                try await operators.signIn(name: "viewer", password: "an insider's password", code: try Self.code(enrollment, at: at), now: at)
            }
            await #expect(throws: OperatorError.signInRefused) {
                try await operators.signIn(name: "viewer", password: Self.password, code: try Self.code(enrollment, at: at.addingTimeInterval(30)), now: at.addingTimeInterval(30))
            }
            #expect(try await fixture.sql.run("UPDATE operators SET merchant_ids = \(original.storedMerchantIDs), password_hash = \(original.passwordHash) WHERE name = 'viewer'") == 1)
        }
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE action = 'operator.integrity_failed'") >= 3)
        // Put back as it was, the row works again.
        let end = later.addingTimeInterval(600)
        _ = try await operators.signIn(name: "viewer", password: Self.password, code: try Self.code(enrollment, at: end), now: end)
    }
}
