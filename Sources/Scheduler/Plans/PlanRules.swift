public import Foundation
public import Vault

/// The settings a plan request is validated against: the merchant's defaults and the service's limits.
public struct PlanRules: Sendable {
    /// The zone of a plan that names none (merchant configuration).
    public var defaultTimeZone: TimeZone
    /// The local time of steps when the request gives no `hour` (configuration).
    public var defaultTime: LocalTime
    /// The most steps a finite plan may have: the cap on `endCount`, on `dates`, and on the steps up to `endDate`.
    public var maxCount: Int
    /// Today in the plan's zone, for the "not in the past" rules; `nil` computes it from the clock.
    ///
    /// Rebuilding a stored plan whose start has passed: pass `CivilDate.min`.
    public var today: CivilDate?
    /// The default zone's name as configured (`UTC` stays `UTC`, where `TimeZone.identifier` may say `GMT`).
    public var defaultTimeZoneName: String

    /// Rules with the given defaults and limits.
    /// - Parameter defaultTimeZoneName: the default zone as configured; nil takes its identifier.
    public init(
        defaultTimeZone: TimeZone, defaultTime: LocalTime = .midnight, maxCount: Int = 1000, today: CivilDate? = nil, defaultTimeZoneName: String? = nil
    ) {
        self.defaultTimeZone = defaultTimeZone
        self.defaultTime = defaultTime
        self.maxCount = maxCount
        self.today = today
        self.defaultTimeZoneName = defaultTimeZoneName ?? defaultTimeZone.identifier
    }

    /// The name of a plan's zone as the request or the configuration wrote it.
    public func timeZoneName(requested: String?) -> String {
        requested ?? defaultTimeZoneName
    }
}
