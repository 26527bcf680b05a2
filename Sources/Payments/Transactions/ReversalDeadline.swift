public import Foundation

/// Until when a payment may be voided (a reversal is possible within a window after the
/// authorization, 24 hours by default; after that the money is returned by a refund).
public struct ReversalDeadline: Sendable, Equatable {
    /// When the payment (or, for a capture, its authorization) was recorded.
    public var authorizedAt: Date
    /// The first instant a void is refused.
    public var closesAt: Date
    /// The configured window.
    public var window: TimeInterval
    /// The transaction a refund should name instead (the sale or the authorization).
    public var refundID: String

    /// The window in words: `24 hours`, `90 minutes`.
    var windowText: String {
        let minutes = Int(window / 60)
        if minutes % 60 == 0 { return minutes == 60 ? "1 hour" : "\(minutes / 60) hours" }
        return minutes == 1 ? "1 minute" : "\(minutes) minutes"
    }
}
