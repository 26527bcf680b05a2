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
        let name = Self.headerText(merchantName)
        let subject = Self.headerText("Receipt from " + Self.oneLine(merchantName))
        let headers = [
            "From: " + name + " <" + from.value + ">",
            "To: " + to.value,
            "Subject: " + subject,
            "Date: " + Self.dateHeader(transaction.updatedAt, zone: timeZone),
            "Message-ID: <receipt." + transaction.id + "@" + from.domain + ">",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: quoted-printable",
        ]
        return headers.joined(separator: "\n") + "\n\n" + QuotedPrintable.encode(body(of: transaction)) + "\n"
    }

    /// The receipt's text: what happened, then the receipt line every channel sends.
    public func body(of transaction: Transaction) -> String {
        let zone = timeZone
        let amount = MoneyText.format(transaction.amount, code: transaction.currency.code)
        let card = [transaction.cardType, transaction.maskedNumber].compactMap { $0 }.joined(separator: " ")
        var lines = [
            Self.oneLine(merchantName),
            "",
            "Paid: " + amount,
        ]
        if !card.isEmpty { lines.append("Card: " + card) }
        lines += [
            "Date: " + ReceiptText.localTime(transaction.updatedAt, zone: zone) + " " + zone.identifier,
            "Transaction: " + transaction.id,
            "",
            ReceiptText.text(of: transaction, merchantName: Self.oneLine(merchantName), zone: zone),
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
