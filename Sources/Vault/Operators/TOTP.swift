public import Foundation

/// Time-based one-time passwords (RFC 6238 over RFC 4226): HMAC-SHA1, 30-second steps counted from
/// the Unix epoch, 6 digits: what every authenticator app computes from an `otpauth://totp` URI
/// without parameters.
public enum TOTP {
    /// Seconds per step.
    public static let stepSeconds: Int64 = 30
    /// Digits of a code.
    public static let digits = 6
    /// Bytes of a new secret (160 bits, RFC 4226's recommended length).
    public static let secretLength = 20

    /// The step `instant` falls in.
    public static func step(at instant: Date) -> Int64 {
        Int64((instant.timeIntervalSince1970 / Double(stepSeconds)).rounded(.down))
    }

    /// The code of `step` under `secret`, zero-padded to `digits` digits (RFC 4226 §5.3).
    public static func code(secret: some Collection<UInt8>, step: Int64, digits: Int = TOTP.digits) -> String {
        let counter = (0..<8).map { UInt8(truncatingIfNeeded: UInt64(bitPattern: step) >> UInt64(56 - 8 * $0)) }
        let mac = SHA1.hmac(counter, key: secret)
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let truncated = (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(truncated % modulus)
        return String(repeating: "0", count: digits - value.count) + value
    }

    /// The step whose code `code` is, among the step of `instant` and one on either side (a phone's
    /// clock a little off, a code typed as its step ends), or nil. Each candidate is compared in
    /// constant time.
    public static func matchingStep(code: String, secret: some Collection<UInt8>, at instant: Date) -> Int64? {
        guard code.utf8.count == digits, code.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        let now = step(at: instant)
        var found: Int64?
        for candidate in [now - 1, now, now + 1] where constantTimeEquals(Array(self.code(secret: secret, step: candidate).utf8), Array(code.utf8)) {
            found = candidate
        }
        return found
    }

    /// The `otpauth://totp/...` URI an authenticator app enrols from (shown as text or a QR code).
    public static func provisioningURI(secret: some Collection<UInt8>, account: String, issuer: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let label = "\(issuer):\(account)".addingPercentEncoding(withAllowedCharacters: allowed) ?? account
        let issuerParameter = issuer.addingPercentEncoding(withAllowedCharacters: allowed) ?? issuer
        return "otpauth://totp/\(label)?secret=\(Encoding.base32(secret).uppercased())&issuer=\(issuerParameter)&algorithm=SHA1&digits=\(digits)&period=\(stepSeconds)"
    }
}
