import Foundation
import Payments
import Testing
import Vault
@testable import Scheduler

/// The e-mail receipt's message: its headers, its body, and what it does with an address or a
/// merchant name that tries to add a header.
@Suite struct ReceiptMailTests {
    static func approved() throws -> Transaction {
        var transaction = Transaction(
            id: "txn_receipt1", merchantID: "m", type: .sale, amount: 1999, currency: try Currency(code: "USD"), gateway: "sandbox",
            now: Timestamp.parse("2027-01-02T14:05:00Z")!)
        transaction.status = .approved
        transaction.cardType = "visa"
        transaction.maskedNumber = "424242******4242"
        return transaction
    }

    static func mail(merchantName: String = "Corner Books") throws -> ReceiptMail {
        ReceiptMail(
            from: try #require(MailAddress("receipts@vault.example")), to: try #require(MailAddress("ada@example.org")),
            merchantName: merchantName, timeZone: try #require(TimeZone(identifier: "America/New_York")))
    }

    /// The headers of `message`, one string per header with its folded lines joined.
    static func headers(_ message: String) -> [String] {
        let head = message.components(separatedBy: "\n\n").first ?? ""
        var headers: [String] = []
        for line in head.split(separator: "\n") {
            if line.hasPrefix(" "), let last = headers.popLast() { headers.append(last + line) } else { headers.append(String(line)) }
        }
        return headers
    }

    @Test func theMessageHasTheHeadersAMailProgramNeeds() throws {
        let message = try Self.mail().message(of: try Self.approved())
        #expect(
            Self.headers(message) == [
                "From: Corner Books <receipts@vault.example>",
                "To: ada@example.org",
                "Subject: Receipt from Corner Books",
                "Date: Sat, 02 Jan 2027 09:05:00 -0500",
                "Message-ID: <receipt.txn_receipt1@vault.example>",
                "MIME-Version: 1.0",
                "Content-Type: text/plain; charset=utf-8",
                "Content-Transfer-Encoding: quoted-printable",
            ])
    }

    @Test func theBodySaysPaidWithAmountCardLocalTimeAndTransaction() throws {
        let transaction = try Self.approved()
        let body = try Self.mail().body(of: transaction)
        #expect(body.contains("Paid: $19.99"))
        #expect(body.contains("Card: visa 424242******4242"))
        #expect(body.contains("Date: 2027-01-02 09:05 America/New_York"))
        #expect(body.contains("Transaction: txn_receipt1"))
        #expect(body.hasPrefix("Corner Books\n"))
        #expect(!body.contains("4242424242424242"))
        // Printable ASCII goes through quoted-printable unchanged, long lines with soft breaks.
        let encoded = try Self.mail().message(of: transaction).components(separatedBy: "\n\n").dropFirst().joined(separator: "\n\n")
        #expect(encoded.split(separator: "\n").allSatisfy { $0.count <= 76 })
        #expect(encoded.replacingOccurrences(of: "=\n", with: "") == body + "\n")
    }

    @Test func aLineBreakInTheMerchantsNameNeverStartsAHeader() throws {
        let message = try Self.mail(merchantName: "Evil\r\nBcc: victim@example.net").message(of: try Self.approved())
        let headers = Self.headers(message)
        #expect(!headers.contains { $0.lowercased().hasPrefix("bcc:") })
        #expect(headers.count == 8)
        let from = try #require(headers.first)
        #expect(from.hasPrefix("From: =?utf-8?B?"))
        #expect(from.hasSuffix("?= <receipts@vault.example>"))
        #expect(!message.contains("\r"))
    }

    @Test func aNonASCIIMerchantNameIsEncodedWordsOfAtMost75Characters() throws {
        let name = "Café Müller & Söhne – Bücher, Karten und Schreibwaren aus Köln"
        let message = try Self.mail(merchantName: name).message(of: try Self.approved())
        let head = message.components(separatedBy: "\n\n")[0]
        let words = head.split(whereSeparator: { $0 == " " || $0 == "\n" }).filter { $0.hasPrefix("=?utf-8?B?") }
        #expect(words.count >= 2)
        #expect(words.allSatisfy { $0.count <= 75 })
        let decoded = words.compactMap { word -> String? in
            let inner = word.dropFirst("=?utf-8?B?".count).dropLast(2)
            return Data(base64Encoded: String(inner)).flatMap { String(data: $0, encoding: .utf8) }
        }
        #expect(decoded.joined().hasPrefix(name))
    }

    @Test(arguments: [
        "ada@example.org\r\nBcc: victim@example.net", "ada@example.org\nBcc: x@y.z", "ada@example.org, eve@example.net",
        "Ada <ada@example.org>", "ada@@example.org", "ada@example@org", "ada", "@example.org", "ada@", "ada@localhost",
        "ada smith@example.org", "\"ada\"@example.org", "adä@example.org", "ada..b@example.org",
        String(repeating: "a", count: 65) + "@example.org", "ada@" + String(repeating: "a", count: 250) + ".org",
    ])
    func anAddressThatIsNotOnePlainAddressIsRefused(text: String) {
        #expect(MailAddress(text) == nil)
    }

    @Test(arguments: ["ada@example.org", "ada.lovelace+receipts@mail.example.co.uk", "o'brien@example.ie", "x@[192.0.2.1]"])
    func aPlainAddressIsKept(text: String) {
        #expect(MailAddress(text)?.value == text)
    }

    @Test func quotedPrintableKeepsLinesShortAndEscapesWhatIsNotPrintable() {
        #expect(QuotedPrintable.encode("a=b café ") == "a=3Db caf=C3=A9=20")
        let long = QuotedPrintable.encode(String(repeating: "x", count: 200))
        #expect(long.split(separator: "\n").allSatisfy { $0.count <= 76 })
        #expect(long.replacingOccurrences(of: "=\n", with: "") == String(repeating: "x", count: 200))
    }
}
