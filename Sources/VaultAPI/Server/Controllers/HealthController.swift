import Hummingbird
import Scheduler
import Synchronization
import Vault

/// `/healthz` (the process answers, and which build: ``VaultVersion``) and `/readyz` (database and keys usable).
///
/// `/readyz` answers within ``readinessLimit`` whatever its dependencies do: a database that
/// stopped answering (a PostgreSQL host down, its connection slots all taken) makes each check
/// wait for its pool's connect timeout, and a probe that waits that long says nothing; so a check
/// not done in time counts as unavailable and the answer is 503 at once.
struct HealthController {
    /// Whether the database answers.
    let databaseReachable: @Sendable () async -> Bool
    /// Whether the master key opens the database's keys.
    let keysUsable: @Sendable () async -> Bool
    /// The longest `/readyz` waits for a check.
    var readinessLimit: Duration = .seconds(2)

    init(store: any VaultStorage, keyring: Keyring) {
        databaseReachable = { await store.isReachable() }
        keysUsable = { (try? await keyring.verifyMasterKey()) != nil }
    }

    init(databaseReachable: @escaping @Sendable () async -> Bool, keysUsable: @escaping @Sendable () async -> Bool, readinessLimit: Duration) {
        self.databaseReachable = databaseReachable
        self.keysUsable = keysUsable
        self.readinessLimit = readinessLimit
    }

    func addRoutes(to router: RouterGroup<VaultRequestContext>) {
        router.get("healthz") { _, _ in
            try JSONCoding.response(["status": "ok", "version": VaultVersion.current])
        }
        router.get("readyz") { _, _ in
            let databaseReady = await Self.within(readinessLimit, databaseReachable)
            let keysReady = databaseReady ? await Self.within(readinessLimit, keysUsable) : false
            let body = ["status": databaseReady && keysReady ? "ready" : "not_ready", "database": databaseReady ? "ok" : "unavailable",
                        "keys": keysReady ? "ok" : "unavailable"]
            return try JSONCoding.response(body, status: databaseReady && keysReady ? .ok : .serviceUnavailable)
        }
    }

    /// `check`'s answer, or false when it has none within `limit`. The check runs in a task of its
    /// own, cancelled and left behind when late: one stuck in a connection pool that ignores
    /// cancellation must not hold the probe.
    static func within(_ limit: Duration, _ check: @escaping @Sendable () async -> Bool) async -> Bool {
        await withCheckedContinuation { continuation in
            let answer = FirstAnswer(continuation)
            let checking = Task { answer.give(await check()) }
            Task {
                try? await Task.sleep(for: limit)
                checking.cancel()
                answer.give(false)
            }
        }
    }

    /// Resumes its continuation with the first answer given, ignoring later ones.
    private final class FirstAnswer: Sendable {
        private let continuation: Mutex<CheckedContinuation<Bool, Never>?>

        init(_ continuation: CheckedContinuation<Bool, Never>) {
            self.continuation = Mutex(continuation)
        }

        func give(_ value: Bool) {
            continuation.withLock { waiting in
                defer { waiting = nil }
                return waiting
            }?.resume(returning: value)
        }
    }
}
