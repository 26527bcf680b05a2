public import Foundation

/// The `Vault-Signature` header: `t=<unix seconds>,v1=<hex HMAC-SHA256(key, "<t>.<body>")>`.
///
/// The timestamp is the time of the delivery attempt, so a receiver can refuse replays of old
/// deliveries; the body is the exact bytes POSTed. The key is the merchant's webhook signing
/// key (`vault webhooks secret MERCHANT` prints it, base64).
public enum WebhookSignature {
    /// The header's name.
    public static let headerName = "Vault-Signature"
    /// The signature scheme's tag in the header.
    public static let scheme = "v1"

    /// The header value signing `body` at `timestamp` with `key`.
    public static func header(body: some Collection<UInt8>, timestamp: Int64, key: SecureBytes) -> String {
        header(body: body, timestamp: timestamp, keys: [key])
    }

    /// The header value signing `body` at `timestamp` with each of `keys`, newest first: one `v1`
    /// entry per key, so a receiver holding any one of them accepts it (a secret's rotation overlap).
    public static func header(body: some Collection<UInt8>, timestamp: Int64, keys: [SecureBytes]) -> String {
        let payload = signedPayload(body: body, timestamp: timestamp)
        let entries = keys.map { key in
            "\(scheme)=" + Encoding.hex(key.withUnsafeBytes { keyBytes in Digest.hmacSHA256(payload, key: keyBytes) })
        }
        return (["t=\(timestamp)"] + entries).joined(separator: ",")
    }

    /// Whether `header` is a valid signature of `body` under `key`, made within `tolerance` of `now`:
    /// what a receiver checks before trusting a delivery. Any `v1` entry may match (several appear
    /// while a signing key is being replaced); MACs are compared in constant time.
    public static func isValid(
        header: String, body: some Collection<UInt8>, key: some Collection<UInt8>, now: Date = Date(), tolerance: TimeInterval = 300
    ) -> Bool {
        guard let parsed = parse(header) else { return false }
        guard abs(now.timeIntervalSince1970 - Double(parsed.timestamp)) <= tolerance else { return false }
        let expected = Digest.hmacSHA256(signedPayload(body: body, timestamp: parsed.timestamp), key: key)
        return parsed.signatures.contains { constantTimeEquals($0, expected) }
    }

    /// The timestamp and `v1` MACs of a header; nil when it has no timestamp or no `v1` entry.
    public static func parse(_ header: String) -> (timestamp: Int64, signatures: [[UInt8]])? {
        var timestamp: Int64?
        var signatures: [[UInt8]] = []
        for part in header.split(separator: ",") {
            guard let equals = part.firstIndex(of: "=") else { continue }
            let name = part[..<equals].trimmingCharacters(in: .whitespaces)
            let value = part[part.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if name == "t" {
                timestamp = Int64(value)
            } else if name == scheme, let mac = try? Encoding.fromHex(value), mac.count == 32 {
                signatures.append(mac)
            }
        }
        guard let timestamp, !signatures.isEmpty else { return nil }
        return (timestamp, signatures)
    }

    /// `"<timestamp>.<body>"`, the bytes the MAC covers.
    static func signedPayload(body: some Collection<UInt8>, timestamp: Int64) -> [UInt8] {
        Array("\(timestamp).".utf8) + Array(body)
    }
}
