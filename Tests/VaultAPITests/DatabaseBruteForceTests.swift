import CSodium
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StorageTestSupport
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
import VaultSQLite
@testable import VaultAppTestSupport

/// The at-rest protections, attacked as a thief holding only the database file and its WAL
/// (SQLite) or a dump of every row (PostgreSQL).
///
/// Cards are registered with Idempotency-Keys through the real HTTP stack (with holder name,
/// customer contact data and custom fields), charged, put on a schedule with receipt contacts,
/// and one is purged. The attacker knows each card's BIN, last four and expiry (clear metadata)
/// and the exact JSON the client sends, enumerates the unknown middle digits and the CVV, and
/// looks for an unkeyed SHA-256, SHA-512 or BLAKE2b (32 and 64 bytes) of every candidate request
/// (body alone, and the middleware's old `method path?query\n body` fingerprint) and of every
/// candidate PAN at every byte offset of both files. The true PAN and CVV are always among the
/// candidates, so the search would find them if any such hash were stored.
@Suite struct DatabaseBruteForceTests {
    struct Card {
        var reference: String
        var pan: String
        var cvv: String
        var holder: String
        var email: String
        var phone: String
        var ip: String
        var custom: String
        var bin: String { String(pan.prefix(6)) }
        var last4: String { String(pan.suffix(4)) }
    }

    static let cards = [
        Card(reference: "bf-1", pan: "5555555555554444", cvv: "828", holder: "Zebulon Quixwick", email: "zq.marchbanks@bruteforce.example",
             phone: "+44 7700 900123", ip: "203.0.113.77", custom: "LOYAL-QX7Z-9931"),
        Card(reference: "bf-2", pan: "4000056655665556", cvv: "271", holder: "Philippa Vanderquist", email: "pvq.purged@bruteforce.example",
             phone: "+1 202 555 0187", ip: "198.51.100.203", custom: "LOYAL-PURGE-4471"),
        Card(reference: "bf-3", pan: "378282246310005", cvv: "8459", holder: "Oswin Tarrant-Blyth", email: "oswin.tb@bruteforce.example",
             phone: "+33 6 12 34 56 78", ip: "2001:db8::beef:42", custom: "LOYAL-AMEX-0577"),
    ]
    static let purgedIndex = 1
    static let receiptEmail = "receipts.zq@bruteforce.example"
    static let receiptPhone = "+44 7700 900456"
    /// The address a one-off sale keeps for its receipts (and its refund's), sealed with the transaction.
    static let saleReceiptEmail = "sale.receipts.zq@bruteforce.example"

    /// The registration body exactly as the client sends it (the attacker's template).
    static func registration(_ card: Card, pan: String, cvv: String) -> String {
        #"{"merchantReference":"\#(card.reference)","method":"keyed","card":{"number":"\#(pan)","expiryDate":"1230","holderName":"\#(card.holder)","cvv":"\#(cvv)"},"customer":{"email":"\#(card.email)","mobileNumber":"\#(card.phone)","ipAddress":"\#(card.ip)"},"customFields":[{"name":"loyaltyCode","value":"\#(card.custom)"}]}"#
    }

    static func idempotencyKey(_ name: String) -> HTTPFields { [.init("Idempotency-Key")!: name] }

    @Test func aDatabaseThiefRecoversNoCardAndNoHolderDataFromTheDatabaseAndWAL() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let fields = try await client.send(
                .put, "/v1/custom-fields", key: fixture.adminA, json: #"{"fields": [{"name": "loyaltyCode", "required": false, "maxLength": 64}]}"#)
            #expect(fields.status == .ok, "\(fields.text)")
            for card in Self.cards {
                let body = Self.registration(card, pan: card.pan, cvv: card.cvv)
                let key = Self.idempotencyKey("register-\(card.reference)")
                let created = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: body, headers: key)
                #expect(created.status == .created, "\(created.text)")
                let token = try #require(created.json["secureCardReference"] as? String)
                // The stored response replays byte for byte (it was sealed, not lost).
                let replay = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: body, headers: key)
                #expect(replay.status == .created)
                #expect(replay.headers[.init("Idempotent-Replayed")!] == "true")
                #expect(replay.text == created.text)
                let sale = try await client.send(
                    .post, "/v1/transactions", key: fixture.adminA,
                    json: #"{"type": "sale", "amount": 1250, "currency": "USD", "secureCardReference": "\#(token)"}"#,
                    headers: Self.idempotencyKey("sale-\(card.reference)"))
                #expect(sale.status.code < 500, "\(sale.text)")
                // A one-off sale with a receipt address, refunded without one (its receipt goes to the kept address).
                let kept = try await client.send(
                    .post, "/v1/transactions", key: fixture.adminA,
                    json: #"{"type": "sale", "amount": 990, "currency": "USD", "secureCardReference": "\#(token)", "receiptEmail": "\#(Self.saleReceiptEmail)", "allowDuplicate": true}"#)
                if kept.status == .created, let keptID = kept.json["id"] as? String {
                    let refund = try await client.send(.post, "/v1/transactions/\(keptID)/refund", key: fixture.adminA, json: #"{"amount": 100}"#)
                    #expect(refund.status == .created, "\(refund.text)")
                }
                let schedule = try await client.send(
                    .post, "/v1/schedules", key: fixture.adminA,
                    json: ScheduleRoutesTests.monthly(card.reference, extra: #", "receiptEmail": "\#(Self.receiptEmail)", "receiptPhone": "\#(Self.receiptPhone)""#),
                    headers: Self.idempotencyKey("schedule-\(card.reference)"))
                #expect(schedule.status == .created, "\(schedule.text)")
            }
            let purged = Self.cards[Self.purgedIndex]
            let deleted = try await client.send(
                .delete, "/v1/secure-cards/\(purged.reference)?purge=true&cancelSchedules=true", key: fixture.adminA)
            #expect(deleted.status == .ok, "\(deleted.text)")
            // Its stored responses were destroyed, and the key is not run a second time.
            let retry = try await client.send(
                .post, "/v1/secure-cards", key: fixture.adminA, json: Self.registration(purged, pan: purged.pan, cvv: purged.cvv),
                headers: Self.idempotencyKey("register-\(purged.reference)"))
            #expect(retry.status == .conflict, "\(retry.text)")
            #expect(!retry.text.contains(purged.holder))
        }

        // SQLite: the database file and its WAL; PostgreSQL (no file of its own to steal): the
        // bytes of every row of every table, as a dump of the database gives them.
        var files: [(String, [UInt8])]
        if fixture.runtime.store is SQLiteStore {
            files = ["vault.sqlite", "vault.sqlite-wal"].compactMap { name in
                FileManager.default.contents(atPath: fixture.directory.file(name)).map { (name, [UInt8]($0)) }
            }
            #expect(files.count == 2)
        } else {
            files = try await fixture.sql.everyTableAsBytes().map { ("table \($0.table)", $0.bytes) }
        }
        #expect(files.contains { $0.1.count > 4096 })

        // 1. Unkeyed hashes of candidate requests and PANs, at every byte offset.
        let index = DigestIndex(cards: Self.cards, middleCandidates: 1_500, cvvCandidates: 8)
        #expect(index.containsTruth, "the true PAN and CVV must be among the candidates")
        for (name, bytes) in files {
            let hits = index.matches(in: bytes)
            #expect(hits.isEmpty, "\(name): unkeyed digests of card data found: \(hits.prefix(5))")
        }
        // The search itself works: a planted digest of a true request is found.
        let planted = [UInt8](repeating: 0, count: 1001) + UnkeyedHash.sha512(Array(("POST /v1/secure-cards?\n" + Self.registration(
            Self.cards[0], pan: Self.cards[0].pan, cvv: Self.cards[0].cvv)).utf8)) + [1, 2, 3]
        #expect(!index.matches(in: planted).isEmpty)
        // So is an unkeyed hash of a holder name or of one of its tokens, however cased or cut
        // (the holder-name search must use a keyed blind index).
        for message in ["quixwick", "Zebulon Quixwick", "ZEBULON", "oswin tarrant blyth", "Tarrant"] {
            for digest in UnkeyedHash.all(Array(message.utf8)) {
                for stored in [digest, Array(digest.prefix(16))] {
                    #expect(!index.matches(in: [UInt8](repeating: 7, count: 333) + stored + [9, 9]).isEmpty, "\(message)")
                }
            }
        }

        // 2. Holder data in the clear.
        #expect(try await fixture.count("email_receipts") >= 2, "a sale's and its refund's receipts were queued")
        var secrets: [String] = [Self.receiptEmail, Self.receiptPhone, Self.receiptPhone.filter(\.isNumber), Self.saleReceiptEmail]
        for card in Self.cards {
            secrets += [card.holder, card.email, card.phone, card.phone.filter(\.isNumber), card.ip, card.custom, card.pan, "\"\(card.cvv)\""]
        }
        for (name, bytes) in files {
            let data = Data(bytes)
            for secret in secrets {
                #expect(data.range(of: Data(secret.utf8)) == nil, "\(name) holds a protected value in the clear (\(secret.count) characters)")
            }
        }
        let logs = fixture.logText
        for secret in secrets { #expect(!logs.contains(secret), "logs hold a protected value") }
    }
}

/// Unkeyed digests as a database thief computes them.
enum UnkeyedHash {
    static func sha256(_ message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        _ = crypto_hash_sha256(&out, message, UInt64(message.count))
        return out
    }

    static func sha512(_ message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 64)
        _ = crypto_hash_sha512(&out, message, UInt64(message.count))
        return out
    }

    static func blake2b(_ message: [UInt8], length: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        _ = crypto_generichash(&out, length, message, UInt64(message.count), nil, 0)
        return out
    }

    static func all(_ message: [UInt8]) -> [[UInt8]] {
        [sha256(message), sha512(message), blake2b(message, length: 32), blake2b(message, length: 64)]
    }
}

/// Every candidate digest, by its first 8 bytes (with the next 8 to confirm a hit).
struct DigestIndex {
    private var entries: [UInt64: (confirm: UInt64, what: String)] = [:]
    private(set) var containsTruth = false

    init(cards: [DatabaseBruteForceTests.Card], middleCandidates: Int, cvvCandidates: Int) {
        _ = sodium_init()
        var generator = SplitMix64(seed: 0x5EED_CA4D)
        for (cardIndex, card) in cards.enumerated() {
            let middleLength = card.pan.count - 10
            let trueMiddle = String(card.pan.dropFirst(6).dropLast(4))
            var middles: [String] = [trueMiddle]
            var seen: Set<String> = [trueMiddle]
            while middles.count < middleCandidates {
                let middle = String((0..<middleLength).map { _ in Character(String(generator.next() % 10)) })
                if seen.insert(middle).inserted { middles.append(middle) }
            }
            var cvvs: [String] = [card.cvv]
            while cvvs.count < cvvCandidates {
                let cvv = String((0..<card.cvv.count).map { _ in Character(String(generator.next() % 10)) })
                if !cvvs.contains(cvv) { cvvs.append(cvv) }
            }
            for name in Self.holderNameCandidates(card.holder) {
                for digest in UnkeyedHash.all(Array(name.utf8)) { add(digest, "holder name of card \(cardIndex)") }
            }
            for middle in middles {
                let pan = card.bin + middle + card.last4
                if pan == card.pan { containsTruth = containsTruth || cvvs.contains(card.cvv) }
                for digest in UnkeyedHash.all(Array(pan.utf8)) { add(digest, "PAN of card \(cardIndex)") }
                // What a careless duplicate check would store: the sale's card and amount, unkeyed.
                for message in ["sale|USD|1250|" + pan, pan + "|1250|USD", pan + "1250USD"] {
                    for digest in UnkeyedHash.all(Array(message.utf8)) { add(digest, "card and amount of card \(cardIndex)") }
                }
                for cvv in cvvs {
                    let body = DatabaseBruteForceTests.registration(card, pan: pan, cvv: cvv)
                    for message in [body, "POST /v1/secure-cards?\n" + body, pan + cvv] {
                        for digest in UnkeyedHash.all(Array(message.utf8)) { add(digest, "request of card \(cardIndex)") }
                    }
                }
            }
        }
    }

    /// What a careless holder-name index would hash: the name and each of its tokens, as written,
    /// lower-cased, upper-cased and normalized (folded, split at non-letters, joined by one space).
    static func holderNameCandidates(_ holder: String) -> Set<String> {
        let normalized = HolderNameIndex.tokens(of: holder)
        var words = holder.split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map(String.init) + normalized
        words += [holder, normalized.joined(separator: " "), normalized.joined()]
        return Set(words.flatMap { [$0, $0.lowercased(), $0.uppercased()] })
    }

    private mutating func add(_ digest: [UInt8], _ what: String) {
        entries[Self.word(digest, 0)] = (Self.word(digest, 8), what)
    }

    private static func word(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self) }
    }

    /// What matched, at which offsets.
    func matches(in bytes: [UInt8]) -> [String] {
        guard bytes.count >= 16 else { return [] }
        var found: [String] = []
        bytes.withUnsafeBytes { raw in
            for offset in 0...(raw.count - 16) {
                if let entry = entries[raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)],
                    raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self) == entry.confirm
                {
                    found.append("\(entry.what) at offset \(offset)")
                }
            }
        }
        return found
    }
}

/// A small deterministic generator, so a failure can be reproduced.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
