import Hummingbird
import Scheduler
import Vault

/// `/healthz` (the process answers) and `/readyz` (database and keys usable).
struct HealthController {
    let store: any VaultStorage
    let keyring: Keyring

    func addRoutes(to router: RouterGroup<VaultRequestContext>) {
        router.get("healthz") { _, _ in
            try JSONCoding.response(["status": "ok"])
        }
        router.get("readyz") { _, _ in
            let databaseReady = await store.isReachable()
            let keysReady = (try? await keyring.verifyMasterKey()) != nil
            let body = ["status": databaseReady && keysReady ? "ready" : "not_ready", "database": databaseReady ? "ok" : "unavailable",
                        "keys": keysReady ? "ok" : "unavailable"]
            return try JSONCoding.response(body, status: databaseReady && keysReady ? .ok : .serviceUnavailable)
        }
    }
}
