public import Foundation
public import Payments
import Vault

/// The e-mail receipt of an approved charge as an RFC 5322 message for a sendmail-compatible
/// program run with `-t` (recipients read from the headers): `From` with the merchant's name as
/// its display name, `To`, `Subject`, `Date`, `Message-ID`, MIME 1.0 `text/plain; charset=utf-8`
/// in quoted-printable, lines ended by LF as a local mail program expects.
///
/// The body is the receipt every channel sends (``ReceiptText``): merchant, amount in the
/// currency's own format, brand and masked card, local date and time with the zone named,
/// transaction id, and "paid". No card number or CVV is ever on a transaction, so none can be here.
///
/// Header safety: both addresses are ``MailAddress`` values (checked, no CR/LF); the merchant's
/// name and the subject are RFC 2047 encoded words whenever they hold anything but plain printable
/// ASCII, so a line break in a merchant's name can never start a header of its own.
public struct ReceiptMail: Sendable, Equatable {
    /// The sender, configuration `receipts.from`.
    public var from: MailAddress
    /// The recipient, the schedule's `receiptEmail`.
    public var to: MailAddress
    /// The merchant's name, the sender's display name and the receipt's first words.
    public var merchantName: String
    /// The merchant's time zone, in which the receipt and its `Date` are written.
    public var timeZone: TimeZone

    /// Creates a receipt.
    public init(from: MailAddress, to: MailAddress, merchantName: String, timeZone: TimeZone) {
        self.from = from
        self.to = to
        self.merchantName = merchantName
        self.timeZone = timeZone
    }

    /// The whole message for `transaction` (approved), headers then a blank line then the body.
    public func message(of transaction: Transaction) -> String {
        message(body: body(of: transaction), occurredAt: transaction.updatedAt, transactionID: transaction.id)
    }

    /// The whole message around a body already written (``body(of:merchantName:timeZone:)``, as the
    /// receipt outbox keeps it): headers then a blank line then the body in quoted-printable.
    public func message(body: String, occurredAt: Date, transactionID: String) -> String {
        let name = Self.headerText(merchantName)
        let subject = Self.headerText("Receipt from " + Self.oneLine(merchantName))
        let headers = [
            "From: " + name + " <" + from.value + ">",
            "To: " + to.value,
            "Subject: " + subject,
            "Date: " + Self.dateHeader(occurredAt, zone: timeZone),
            "Message-ID: <receipt." + transactionID + "@" + from.domain + ">",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: quoted-printable",
        ]
        return headers.joined(separator: "\n") + "\n\n" + QuotedPrintable.encode(body) + "\n"
    }

    /// The receipt's text: what happened, then the receipt line every channel sends.
    public func body(of transaction: Transaction) -> String {
        Self.body(of: transaction, merchantName: merchantName, timeZone: timeZone)
    }

    /// The text of `transaction`'s receipt for `merchantName`, dated in `timeZone`: the merchant,
    /// what happened (`Paid`, `Refunded`, `Voided`) with the amount in the currency's own format,
    /// brand and masked card, local date and time with the zone named, the transaction id.
    public static func body(of transaction: Transaction, merchantName: String, timeZone zone: TimeZone) -> String {
        let amount = MoneyText.format(transaction.amount, code: transaction.currency.code)
        let card = [transaction.cardType, transaction.maskedNumber].compactMap { $0 }.joined(separator: " ")
        let what = switch transaction.type {
        case .refund: "Refunded: "
        case .void: "Voided: "
        default: "Paid: "
        }
        var lines = [
            oneLine(merchantName),
            "",
            what + amount,
        ]
        if !card.isEmpty { lines.append("Card: " + card) }
        lines += [
            "Date: " + ReceiptText.localTime(transaction.updatedAt, zone: zone) + " " + zone.identifier,
            "Transaction: " + transaction.id,
            "",
            ReceiptText.text(of: transaction, merchantName: oneLine(merchantName), zone: zone),
        ]
        return lines.joined(separator: "\n")
    }

    /// `text` with every control character (CR, LF, tab, ...) turned into a space.
    static func oneLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
    }

    /// `text` as it may stand in a header: kept when it is printable ASCII without characters that
    /// would need quoting in a display name, otherwise one or more RFC 2047 `=?utf-8?B?...?=` words
    /// (each at most 75 characters, split between whole characters).
    static func headerText(_ text: String) -> String {
        let plain = oneLine(text)
        let special = Set("\"(),.:;<>@[\\]=?")
        if plain.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }), !plain.contains(where: { special.contains($0) }) {
            return plain
        }
        var words: [String] = []
        var chunk = ""
        for character in plain {
            // 45 bytes of UTF-8 make 60 base64 characters: with `=?utf-8?B?` and `?=` a word of 72.
            if chunk.utf8.count + character.utf8.count > 45 {
                words.append(chunk)
                chunk = ""
            }
            chunk.append(character)
        }
        if !chunk.isEmpty { words.append(chunk) }
        return words.map { "=?utf-8?B?" + Data($0.utf8).base64EncodedString() + "?=" }.joined(separator: "\n ")
    }

    /// An RFC 5322 date: `Sat, 02 Jan 2027 09:00:00 -0500`, in English whatever the server's locale.
    static func dateHeader(_ instant: Date, zone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.timeZone = zone
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        return formatter.string(from: instant)
    }
}
