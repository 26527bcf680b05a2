#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the long-running commands (`serve`, `charge run`) do to their own process before they
/// hold keys and card data in memory.
enum ProcessHardening {
    /// Turns core dumps off (soft and hard limit 0), so a crash cannot write keys or opened card
    /// records to disk. Keys also sit in `sodium_malloc` memory marked `MADV_DONTDUMP`; this covers
    /// what passes through ordinary memory (a request body, a gateway answer).
    /// - Returns: false when the limit could not be set (the caller logs a warning and goes on).
    @discardableResult
    static func disableCoreDumps() -> Bool {
        var limit = rlimit(rlim_cur: 0, rlim_max: 0)
        #if canImport(Glibc)
        return setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit) == 0
        #else
        return setrlimit(RLIMIT_CORE, &limit) == 0
        #endif
    }
}
