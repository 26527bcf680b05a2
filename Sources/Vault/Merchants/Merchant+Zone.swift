public import Foundation

extension Merchant {
    /// The merchant's time zone: where "today" is for expiry checks, statistics periods and
    /// schedules. UTC when the stored name is not a zone this system knows (a zone database that
    /// dropped a name must not stop the merchant's requests).
    public var zone: TimeZone {
        TimeZone(identifier: timeZone) ?? TimeZone(identifier: "UTC")!
    }

    /// The name of ``zone``: the stored name, or `UTC` when that is not a zone this system knows.
    public var zoneName: String {
        TimeZone(identifier: timeZone) == nil ? "UTC" : timeZone
    }
}
