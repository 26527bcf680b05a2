#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process environment, for the variables that carry secrets.
enum ProcessEnvironment {
    /// The variables holding key material or a database password: removed from the environment once
    /// the configuration has read them.
    static let secretVariables = ["VAULT_MASTER_KEY", "VAULT_MASTER_PASSPHRASE", "VAULT_NEW_MASTER_PASSPHRASE", "VAULT_DATABASE_URL"]

    /// Overwrites the value of each variable in place with zero bytes, then removes it (`unsetenv`).
    ///
    /// Removing alone would leave the bytes in the process's initial environment block (still
    /// readable in `/proc/<pid>/environ` and in a core dump); zeroing them first scrubs that copy.
    /// Child processes no longer inherit the variables. Call it at start-up, before other threads
    /// read the environment.
    static func scrub(_ names: [String]) {
        for name in names {
            if let value = getenv(name) {
                let length = strlen(value)
                memset(value, 0, length)
            }
            unsetenv(name)
        }
    }
}
