/// Parsing and writing the key file format, entirely in locked memory.
extension MasterKeyFile {
    private static let header = """
        # Vault master key-encryption keys (KEK). Keep secret: mode 0600, never commit.
        # One key per line: <version> <base64 of 32 bytes>. The highest version is current.

        """

    /// Parses key file bytes into a ring.
    /// - Throws: ``LoadError/malformed(path:line:reason:)``, ``LoadError/empty(path:)``.
    static func parse(_ bytes: UnsafeRawBufferPointer, path: String) throws -> MasterKeyRing {
        var keys: [Int: SecureBytes] = [:]
        var lineNumber = 0
        var lineStart = 0
        while lineStart < bytes.count {
            let lineEnd = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            lineNumber += 1
            defer { lineStart = lineEnd + 1 }
            let line = trimmed(lineStart..<lineEnd, in: bytes)
            guard !line.isEmpty, bytes[line.lowerBound] != UInt8(ascii: "#") else { continue }

            func malformed(_ reason: String) -> LoadError {
                LoadError.malformed(path: path, line: lineNumber, reason: reason)
            }
            guard let separator = bytes[line].firstIndex(where: isBlank) else {
                throw malformed("expected \"<version> <base64 key>\"")
            }
            let versionDigits = bytes[line.lowerBound..<separator]
            guard versionDigits.count <= 9, versionDigits.allSatisfy({ (0x30...0x39).contains($0) }),
                  let version = Int(String(decoding: versionDigits, as: UTF8.self)), version >= 1
            else {
                throw malformed("version must be a whole number from 1")
            }
            let keyText = trimmed(separator..<line.upperBound, in: bytes)
            guard !bytes[keyText].contains(where: isBlank) else {
                throw malformed("unexpected text after the key")
            }
            guard keys[version] == nil else { throw malformed("version \(version) appears twice") }
            let key: SecureBytes
            do {
                key = try Encoding.secureFromBase64(utf8: UnsafeRawBufferPointer(rebasing: bytes[keyText]))
            } catch CryptoError.invalidEncoding {
                throw malformed("key is not valid base64")
            }
            guard key.count == MasterKeyRing.keyLength else {
                throw malformed("key is \(key.count) bytes, expected \(MasterKeyRing.keyLength)")
            }
            keys[version] = key
        }
        guard !keys.isEmpty else { throw LoadError.empty(path: path) }
        return try MasterKeyRing(keys: keys)
    }

    /// The file contents for `ring` (header, then one line per version,
    /// ascending), built in locked memory.
    static func serialize(_ ring: MasterKeyRing) throws -> SecureBytes {
        let header = Array(Self.header.utf8)
        let encodedLength = Encoding.base64EncodedLength(MasterKeyRing.keyLength) - 1
        let lines = ring.versions.map { (prefix: Array("\($0) ".utf8), key: ring.key(version: $0)!) }
        let total = header.count + lines.reduce(0) { $0 + $1.prefix.count + encodedLength + 1 }
        return try SecureBytes(count: total) { output in
            var offset = 0
            func append(_ bytes: [UInt8]) {
                UnsafeMutableRawBufferPointer(rebasing: output[offset..<offset + bytes.count]).copyBytes(from: bytes)
                offset += bytes.count
            }
            append(header)
            for line in lines {
                append(line.prefix)
                line.key.withUnsafeBytes { key in
                    // The encoder writes a NUL after the text; the newline overwrites it.
                    Encoding.base64(raw: key, into: UnsafeMutableRawBufferPointer(rebasing: output[offset..<offset + encodedLength + 1]))
                }
                offset += encodedLength
                append([UInt8(ascii: "\n")])
            }
        }
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
    }

    private static func trimmed(_ range: Range<Int>, in bytes: UnsafeRawBufferPointer) -> Range<Int> {
        var lower = range.lowerBound
        var upper = range.upperBound
        while lower < upper, isBlank(bytes[lower]) { lower += 1 }
        while upper > lower, isBlank(bytes[upper - 1]) { upper -= 1 }
        return lower..<upper
    }
}
