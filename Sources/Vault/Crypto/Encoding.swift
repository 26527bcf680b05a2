internal import CSodium

/// Text encodings done with libsodium: base64 (`sodium_bin2base64`/
/// `sodium_base642bin`, original alphabet with padding, strict: no
/// whitespace, canonical padding bits) and hex (`sodium_bin2hex`/
/// `sodium_hex2bin`). Base32 is in `Encoding+Base32.swift`.
///
/// Decoding errors say which encoding failed and never echo the input.
public enum Encoding {
    /// Standard base64 with `=` padding.
    public static func base64(_ bytes: some Collection<UInt8>) -> String {
        bytes.withSodiumBytes(base64(raw:))
    }

    /// Base64 of key material, for writing key files only: the returned
    /// string is ordinary memory.
    public static func base64(_ secret: SecureBytes) -> String {
        secret.withUnsafeBytes(base64(raw:))
    }

    /// Decodes standard padded base64.
    /// - Throws: ``CryptoError/invalidEncoding(_:)`` (`"base64"`).
    public static func fromBase64(_ text: String) throws -> [UInt8] {
        Sodium.ensureInitializedOrTrap()
        return try text.utf8.withSodiumBytes { input in
            let capacity = input.count / 4 * 3 + 3
            var status: Int32 = -1
            let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { output, initializedCount in
                var decodedLength = 0
                status = sodium_base642bin(
                    output.baseAddress!, capacity, input.sodiumChars, input.count,
                    nil, &decodedLength, nil, sodium_base64_VARIANT_ORIGINAL
                )
                initializedCount = status == 0 ? decodedLength : 0
            }
            guard status == 0 else { throw CryptoError.invalidEncoding("base64") }
            return bytes
        }
    }

    /// Decodes standard padded base64 straight into locked memory (key files,
    /// `VAULT_MASTER_KEY`), so the key bytes never sit in ordinary memory.
    /// - Throws: ``CryptoError/invalidEncoding(_:)`` (`"base64"`),
    ///   ``CryptoError/outOfMemory``.
    public static func secureFromBase64(_ text: String) throws -> SecureBytes {
        try text.utf8.withSodiumBytes { try secureFromBase64(utf8: $0) }
    }

    /// Lowercase hexadecimal, two digits per byte.
    public static func hex(_ bytes: some Collection<UInt8>) -> String {
        Sodium.ensureInitializedOrTrap()
        return bytes.withSodiumBytes { input in
            let capacity = input.count * 2 + 1
            return String(unsafeUninitializedCapacity: capacity) { output in
                output.withMemoryRebound(to: CChar.self) { chars in
                    _ = sodium_bin2hex(chars.baseAddress!, capacity, input.sodiumBytes, input.count)
                }
                return capacity - 1
            }
        }
    }

    /// Decodes hexadecimal (either case, no separators, even length).
    /// - Throws: ``CryptoError/invalidEncoding(_:)`` (`"hex"`).
    public static func fromHex(_ text: String) throws -> [UInt8] {
        Sodium.ensureInitializedOrTrap()
        guard !text.isEmpty else { return [] }
        return try text.utf8.withSodiumBytes { input in
            guard input.count.isMultiple(of: 2) else { throw CryptoError.invalidEncoding("hex") }
            var status: Int32 = -1
            let bytes = [UInt8](unsafeUninitializedCapacity: input.count / 2) { output, initializedCount in
                var decodedLength = 0
                status = sodium_hex2bin(
                    output.baseAddress!, output.count, input.sodiumChars, input.count,
                    nil, &decodedLength, nil
                )
                initializedCount = status == 0 ? decodedLength : 0
            }
            guard status == 0, bytes.count == input.count / 2 else { throw CryptoError.invalidEncoding("hex") }
            return bytes
        }
    }

    /// Decodes base64 text held anywhere (including locked memory) into
    /// locked memory of exactly the decoded length.
    static func secureFromBase64(utf8 input: UnsafeRawBufferPointer) throws -> SecureBytes {
        guard !input.isEmpty else { return try SecureBytes(count: 0) }
        guard input.count.isMultiple(of: 4) else { throw CryptoError.invalidEncoding("base64") }
        let padding = input.reversed().prefix(2).prefix(while: { $0 == UInt8(ascii: "=") }).count
        let decodedCount = input.count / 4 * 3 - padding
        return try SecureBytes(count: decodedCount) { output in
            var decodedLength = 0
            let status = sodium_base642bin(
                output.sodiumBytes, output.count, input.sodiumChars, input.count,
                nil, &decodedLength, nil, sodium_base64_VARIANT_ORIGINAL
            )
            guard status == 0, decodedLength == decodedCount else {
                throw CryptoError.invalidEncoding("base64")
            }
        }
    }

    /// Base64 of raw bytes; also used to write key files into locked memory.
    static func base64(raw input: UnsafeRawBufferPointer) -> String {
        Sodium.ensureInitializedOrTrap()
        let capacity = base64EncodedLength(input.count)
        return String(unsafeUninitializedCapacity: capacity) { output in
            output.withMemoryRebound(to: CChar.self) { chars in
                _ = sodium_bin2base64(chars.baseAddress!, capacity, input.sodiumBytes, input.count, sodium_base64_VARIANT_ORIGINAL)
            }
            return capacity - 1
        }
    }

    /// Writes padded base64 of `input` to `output` (which must hold
    /// ``base64EncodedLength(_:)`` bytes, the last one a NUL terminator).
    static func base64(raw input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        Sodium.ensureInitializedOrTrap()
        precondition(output.count >= base64EncodedLength(input.count))
        _ = sodium_bin2base64(
            output.baseAddress!.assumingMemoryBound(to: CChar.self), output.count,
            input.sodiumBytes, input.count, sodium_base64_VARIANT_ORIGINAL
        )
    }

    /// Length of padded base64 for `byteCount` bytes, including a NUL terminator.
    static func base64EncodedLength(_ byteCount: Int) -> Int {
        sodium_base64_encoded_len(byteCount, sodium_base64_VARIANT_ORIGINAL)
    }
}
