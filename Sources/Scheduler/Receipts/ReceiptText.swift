import Foundation
import Payments
import Vault

/// The text of a payment receipt, the same for every channel: the merchant, what happened, the
/// amount in the currency's own format, the card (brand and masked number, never the number), the
/// date and time in the merchant's time zone with the zone named, and the transaction id.
///
/// `Corner Books: payment of $19.99 approved, visa 424242******4242, 2027-01-02 09:00 America/New_York, transaction txn_...`
enum ReceiptText {
    /// The receipt of `transaction` (an approved sale, refund or void) for `merchantName`, dated in `zone`.
    static func text(of transaction: Transaction, merchantName: String, zone: TimeZone) -> String {
        let what = switch transaction.type {
        case .refund: "refund of"
        case .void: "void of"
        default: "payment of"
        }
        let amount = MoneyText.format(transaction.amount, code: transaction.currency.code)
        let card = [transaction.cardType, transaction.maskedNumber].compactMap { $0 }.joined(separator: " ")
        let when = Self.localTime(transaction.updatedAt, zone: zone) + " " + zone.identifier
        let parts = [merchantName + ": " + what + " " + amount + " approved", card.isEmpty ? nil : card, when, "transaction " + transaction.id]
        return parts.compactMap { $0 }.joined(separator: ", ")
    }

    /// `yyyy-MM-dd HH:mm` of `instant` on the wall clock of `zone` (Gregorian, whatever the server's locale).
    static func localTime(_ instant: Date, zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: instant)
        func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
        return String(format: "%04d", parts.year ?? 0) + "-" + two(parts.month) + "-" + two(parts.day) + " " + two(parts.hour) + ":" + two(parts.minute)
    }
}
