/// The console's sign-in and session limits (`console.*` in the configuration).
public struct ConsolePolicy: Sendable, Equatable {
    /// Failed sign-ins in a row that lock an account.
    public var lockoutAttempts: Int
    /// How long a locked account stays locked, in minutes.
    public var lockoutMinutes: Int
    /// A session without a request for this many minutes ends.
    public var idleMinutes: Int
    /// A session ends this many hours after sign-in, however active.
    public var absoluteHours: Int

    /// The defaults: 6 attempts, 30 minutes locked, 15 minutes idle, 12 hours in all (PCI DSS
    /// v4.0 8.3.4 asks for at most 10 attempts and at least 30 minutes; 8.2.8 for at most 15 idle
    /// minutes).
    public init(lockoutAttempts: Int = 6, lockoutMinutes: Int = 30, idleMinutes: Int = 15, absoluteHours: Int = 12) {
        self.lockoutAttempts = lockoutAttempts
        self.lockoutMinutes = lockoutMinutes
        self.idleMinutes = idleMinutes
        self.absoluteHours = absoluteHours
    }
}
