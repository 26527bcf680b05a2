import Foundation

/// The age of the current master key version against `keys.cryptoperiodDays`: the period after
/// which a key should no longer protect new data (PCI DSS asks for a defined cryptoperiod), so
/// `keys status` warns once it has passed.
struct CryptoperiodCheck: Equatable {
    /// Whole days since the version was created.
    var ageDays: Int
    /// Whether the age is beyond the cryptoperiod.
    var isPast: Bool

    init(createdAt: Date, cryptoperiodDays: Int, now: Date = Date()) {
        ageDays = max(0, Int(now.timeIntervalSince(createdAt) / 86_400))
        isPast = ageDays > cryptoperiodDays
    }
}
