import Foundation

/// `--expires-in` of `vault merchant key`: a whole number of days (`90d`) or hours (`12h`).
enum APIKeyExpiry {
    /// The seconds `text` names, or nil when it is not `<n>d` or `<n>h` with n from 1 to 3650 days.
    static func duration(_ text: String) -> TimeInterval? {
        guard let unit = text.last, let count = Int(text.dropLast()), count > 0 else { return nil }
        switch unit {
        case "d" where count <= 3650: return TimeInterval(count) * 86_400
        case "h" where count <= 3650 * 24: return TimeInterval(count) * 3_600
        default: return nil
        }
    }
}
