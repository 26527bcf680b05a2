import Foundation

/// Keeps holder data (a card holder's name, a receipt phone) out of the stored webhook outbox: such
/// a value is written into an event's body as a sealed marker, `"sealed:v1:<record>:<base64>"`,
/// sealed under the merchant's data key, and opened only when the body is sent.
///
/// The stored body stays canonical JSON (the marker is a plain string value), so lists of events
/// show the marker, never the value; the deliverer replaces each marker by the opened value as a
/// JSON string just before signing, the same bytes on every attempt.
public struct WebhookFieldSeal: Sendable {
    /// The `kind` of sealed webhook fields (bound into each seal).
    public static let kind = "webhook_field"
    static let prefix = "sealed:v1:"

    private let keyring: Keyring

    /// A seal over the merchants' data keys.
    public init(keyring: Keyring) {
        self.keyring = keyring
    }

    /// The marker of `value` for one of `merchantID`'s events about `recordID` (a transaction id).
    /// - Throws: `KeyringError` when the merchant's data key is unavailable.
    public func seal(_ value: String, merchantID: String, recordID: String) async throws -> String {
        let sealed = try await keyring.sealRecord(Array(value.utf8), merchantID: merchantID, kind: Self.kind, recordID: recordID)
        return Self.prefix + recordID + ":" + Data(sealed).base64EncodedString()
    }

    /// The value one marker (``seal(_:merchantID:recordID:)``) stands for, as given to the seal:
    /// for a sealed field stored outside a JSON body (an e-mail receipt's recipient).
    /// - Throws: `CryptoError.malformedCiphertext` for anything but a marker; `KeyringError` or a
    ///   crypto error when it does not open for `merchantID`.
    public func openValue(_ marker: String, merchantID: String) async throws -> String {
        guard marker.hasPrefix(Self.prefix) else { throw CryptoError.malformedCiphertext }
        let rest = marker.dropFirst(Self.prefix.count)
        guard let colon = rest.firstIndex(of: ":"), let blob = Data(base64Encoded: String(rest[rest.index(after: colon)...])) else {
            throw CryptoError.malformedCiphertext
        }
        let opened = try await keyring.openRecord([UInt8](blob), merchantID: merchantID, kind: Self.kind, recordID: String(rest[..<colon]))
        return String(decoding: opened.copyToArray(), as: UTF8.self)
    }

    /// `marker` sealed again under the merchant's newest data key (same value, same record), or nil
    /// when it already is: for re-sealing at data-key rotation, so no stored marker needs a
    /// superseded key.
    /// - Throws: `CryptoError.malformedCiphertext` for anything but a marker; `KeyringError` or a
    ///   crypto error when it does not open for `merchantID`.
    public func resealed(_ marker: String, merchantID: String) async throws -> String? {
        guard marker.hasPrefix(Self.prefix) else { throw CryptoError.malformedCiphertext }
        let rest = marker.dropFirst(Self.prefix.count)
        guard let colon = rest.firstIndex(of: ":"), let blob = Data(base64Encoded: String(rest[rest.index(after: colon)...])),
            let version = Keyring.keyVersion(ofSealedRecord: [UInt8](blob))
        else { throw CryptoError.malformedCiphertext }
        let (_, newest) = try await keyring.key(merchantID: merchantID, purpose: .data)
        guard version < newest else { return nil }
        let recordID = String(rest[..<colon])
        let opened = try await keyring.openRecord([UInt8](blob), merchantID: merchantID, kind: Self.kind, recordID: recordID)
        let sealed = try await keyring.sealRecord(opened, merchantID: merchantID, kind: Self.kind, recordID: recordID)
        return Self.prefix + recordID + ":" + Data(sealed).base64EncodedString()
    }

    /// `body` with every marker sealed again under the merchant's newest data key (``resealed(_:merchantID:)``),
    /// the same body once opened; nil when no marker needs it. For re-sealing stored webhook event
    /// bodies at data-key rotation, so an event still to be sent opens once the superseded key is destroyed.
    /// - Throws: `CryptoError.malformedCiphertext` for a marker cut short; `KeyringError` or a crypto
    ///   error when a marker does not open for `merchantID`.
    public func resealedBody(_ body: String, merchantID: String) async throws -> String? {
        let quotedPrefix = "\"" + Self.prefix
        guard body.contains(quotedPrefix) else { return nil }
        var output = ""
        var changed = false
        var rest = Substring(body)
        while let start = rest.range(of: quotedPrefix) {
            let marker = rest[rest.index(after: start.lowerBound)...]
            guard let end = marker.firstIndex(of: "\"") else { throw CryptoError.malformedCiphertext }
            output += rest[..<start.lowerBound]
            if let resealed = try await resealed(String(marker[..<end]), merchantID: merchantID) {
                output += "\"" + resealed + "\""
                changed = true
            } else {
                output += rest[start.lowerBound...end]
            }
            rest = marker[marker.index(after: end)...]
        }
        return changed ? output + rest : nil
    }

    /// `body` with every marker replaced by its opened value, JSON-escaped (`body` when it has none).
    /// - Throws: `KeyringError` or a crypto error when a marker does not open for `merchantID`.
    public func open(_ body: String, merchantID: String) async throws -> String {
        let quotedPrefix = "\"" + Self.prefix
        guard body.contains(quotedPrefix) else { return body }
        var output = ""
        var rest = Substring(body)
        while let start = rest.range(of: quotedPrefix) {
            output += rest[..<start.lowerBound]
            let afterPrefix = rest[start.upperBound...]
            guard let end = afterPrefix.firstIndex(of: "\""), let colon = afterPrefix[..<end].firstIndex(of: ":"),
                let blob = Data(base64Encoded: String(afterPrefix[afterPrefix.index(after: colon)..<end]))
            else { throw CryptoError.malformedCiphertext }
            let recordID = String(afterPrefix[..<colon])
            let opened = try await keyring.openRecord([UInt8](blob), merchantID: merchantID, kind: Self.kind, recordID: recordID)
            var escaped: [UInt8] = []
            CanonicalJSON.append(string: String(decoding: opened.copyToArray(), as: UTF8.self), to: &escaped)
            output += String(decoding: escaped, as: UTF8.self)
            rest = afterPrefix[afterPrefix.index(after: end)...]
        }
        return output + rest
    }
}
