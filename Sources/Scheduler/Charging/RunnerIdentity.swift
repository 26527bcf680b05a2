import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Who holds a step lease: `<host>:<pid>:<random>`. On the same host, a lease whose process no
/// longer exists is free at once (a runner killed with SIGKILL does not block the next run until
/// its lease expires).
public enum RunnerIdentity {
    /// This process's name, for records that outlive a run (`charge_runs.owner`).
    public static let process = make()

    /// A fresh owner name for this process.
    public static func make() -> String {
        "\(ProcessInfo.processInfo.hostName):\(getpid()):\(OpaqueID.random())"
    }

    /// Whether `owner` names a process of this host that no longer exists.
    public static func isGone(_ owner: String) -> Bool {
        let parts = owner.split(separator: ":")
        guard parts.count == 3, String(parts[0]) == ProcessInfo.processInfo.hostName, let pid = Int32(parts[1]) else { return false }
        if pid == getpid() { return false }
        return kill(pid, 0) != 0 && errno == ESRCH
    }
}

enum OpaqueID {
    static func random() -> String {
        String(UInt64.random(in: 0...UInt64.max), radix: 36)
    }
}
