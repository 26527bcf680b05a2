import Foundation
import Testing
@testable import Vault

/// HMAC-SHA256 written out from RFC 2104 over plain SHA-256, so the signature is checked
/// against a computation that does not use the code under test.
func independentHMACSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
    var block = key.count > 64 ? Digest.sha256(key) : key
    block += [UInt8](repeating: 0, count: 64 - block.count)
    let inner = Digest.sha256(block.map { $0 ^ 0x36 } + message)
    return Digest.sha256(block.map { $0 ^ 0x5c } + inner)
}

@Suite struct WebhookSignatureTests {
    static let body = Array(#"{"id":"evt_1","type":"transaction.approved"}"#.utf8)

    @Test func theIndependentHMACMatchesRFC4231() {
        let mac = independentHMACSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(Encoding.hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func headerIsTimestampThenHexHMACOfTimestampDotBody() throws {
        let keyBytes = RandomBytes.make(32)
        let key = try SecureBytes(copying: keyBytes)
        let header = WebhookSignature.header(body: Self.body, timestamp: 1_799_582_400, key: key)
        #expect(header.wholeMatch(of: /t=1799582400,v1=[0-9a-f]{64}/) != nil)
        let expected = independentHMACSHA256(key: keyBytes, message: Array("1799582400.".utf8) + Self.body)
        #expect(header == "t=1799582400,v1=" + Encoding.hex(expected))
    }

    @Test func receiversAcceptTheSignatureAndRefuseTamperingReplaysAndOtherKeys() throws {
        let keyBytes = RandomBytes.make(32)
        let key = try SecureBytes(copying: keyBytes)
        let now = Date(timeIntervalSince1970: 1_799_582_400)
        let header = WebhookSignature.header(body: Self.body, timestamp: 1_799_582_400, key: key)
        #expect(WebhookSignature.isValid(header: header, body: Self.body, key: keyBytes, now: now))
        #expect(WebhookSignature.isValid(header: header, body: Self.body, key: keyBytes, now: now.addingTimeInterval(299)))
        #expect(!WebhookSignature.isValid(header: header, body: Self.body, key: keyBytes, now: now.addingTimeInterval(301)))
        #expect(!WebhookSignature.isValid(header: header, body: Self.body + [0x20], key: keyBytes, now: now))
        #expect(!WebhookSignature.isValid(header: header, body: Self.body, key: RandomBytes.make(32), now: now))
        let otherTime = header.replacingOccurrences(of: "t=1799582400", with: "t=1799582401")
        #expect(!WebhookSignature.isValid(header: otherTime, body: Self.body, key: keyBytes, now: now))
        #expect(!WebhookSignature.isValid(header: "garbage", body: Self.body, key: keyBytes, now: now))
    }

    @Test func anyOfSeveralV1SignaturesMayMatch() throws {
        let keyBytes = RandomBytes.make(32)
        let header = WebhookSignature.header(body: Self.body, timestamp: 100, key: try SecureBytes(copying: keyBytes))
        let withOld = "t=100,v1=" + String(repeating: "ab", count: 32) + "," + header.split(separator: ",")[1]
        #expect(WebhookSignature.isValid(header: withOld, body: Self.body, key: keyBytes, now: Date(timeIntervalSince1970: 100)))
        #expect(WebhookSignature.parse(withOld)?.signatures.count == 2)
    }
}
