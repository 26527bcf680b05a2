/// Reading the KEK from `VAULT_MASTER_KEY`.
extension MasterKeyRing {
    /// Parses `VAULT_MASTER_KEY`: either `<base64>` (version 1) or
    /// `<version>:<base64>[,<version>:<base64>...]`. Whitespace around the
    /// value and around entries is ignored.
    ///
    /// Errors say which entry is wrong and why, never its text.
    /// - Throws: ``CryptoError/invalidEncoding(_:)`` for bad syntax or
    ///   base64, ``CryptoError/invalidKeyLength(expected:actual:)``,
    ///   ``MasterKeyRingError/duplicateVersion(_:)``, ``MasterKeyRingError/invalidVersion(_:)``.
    public static func fromEnvironmentValue(_ value: String) throws -> MasterKeyRing {
        let value = value.trimmingASCIIWhitespace()
        guard !value.isEmpty else { throw CryptoError.invalidEncoding("VAULT_MASTER_KEY is empty") }
        guard value.contains(":") else {
            return try MasterKeyRing(keys: [1: decodeKey(value, entry: nil)])
        }
        var keys: [Int: SecureBytes] = [:]
        for (index, rawEntry) in value.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            let entry = rawEntry.trimmingASCIIWhitespace()
            let position = index + 1
            let parts = entry.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else {
                throw CryptoError.invalidEncoding("VAULT_MASTER_KEY entry \(position): expected <version>:<base64>")
            }
            let versionText = parts[0].trimmingASCIIWhitespace()
            guard versionText.count <= 9, versionText.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                  let version = Int(versionText)
            else {
                throw CryptoError.invalidEncoding("VAULT_MASTER_KEY entry \(position): version is not a number")
            }
            guard version >= 1 else { throw MasterKeyRingError.invalidVersion(version) }
            guard keys[version] == nil else { throw MasterKeyRingError.duplicateVersion(version) }
            keys[version] = try decodeKey(parts[1].trimmingASCIIWhitespace(), entry: position)
        }
        return try MasterKeyRing(keys: keys)
    }

    private static func decodeKey(_ text: Substring, entry: Int?) throws -> SecureBytes {
        let key: SecureBytes
        do {
            key = try Encoding.secureFromBase64(String(text))
        } catch CryptoError.invalidEncoding {
            let place = entry.map { " entry \($0)" } ?? ""
            throw CryptoError.invalidEncoding("VAULT_MASTER_KEY\(place): key is not valid base64")
        }
        guard key.count == keyLength else {
            throw CryptoError.invalidKeyLength(expected: keyLength, actual: key.count)
        }
        return key
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces, tabs, CR and LF.
    fileprivate func trimmingASCIIWhitespace() -> Substring {
        let isWhitespace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        let text = self[...]
        guard let first = text.firstIndex(where: { !isWhitespace($0) }) else { return Substring() }
        let last = text.lastIndex(where: { !isWhitespace($0) })!
        return Substring(text[first...last])
    }
}
