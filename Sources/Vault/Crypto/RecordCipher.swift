internal import CSodium

/// XChaCha20-Poly1305-IETF with associated data: how vault records are sealed.
///
/// Output layout: 24-byte random nonce || ciphertext || 16-byte tag. The
/// nonce is random for every seal (192 bits: safe to pick at random for any
/// number of messages under one key). Bind the ciphertext to its place with
/// the associated data (merchant, card, key version): opening it anywhere
/// else fails.
public enum RecordCipher {
    /// Key length in bytes (32).
    public static let keyLength: Int = crypto_aead_xchacha20poly1305_ietf_keybytes()
    /// Nonce length in bytes (24), stored in front of the ciphertext.
    public static let nonceLength: Int = crypto_aead_xchacha20poly1305_ietf_npubbytes()
    /// Authentication tag length in bytes (16), stored after the ciphertext.
    public static let tagLength: Int = crypto_aead_xchacha20poly1305_ietf_abytes()
    /// Bytes a sealed record has beyond its plaintext (nonce + tag, 40).
    public static var overhead: Int { nonceLength + tagLength }

    /// Encrypts and authenticates `plaintext` and `associatedData`.
    /// - Returns: nonce || ciphertext || tag (`plaintext.count + 40` bytes).
    /// - Throws: ``CryptoError/invalidKeyLength(expected:actual:)``,
    ///   ``CryptoError/sealFailed``.
    public static func seal(_ plaintext: some Collection<UInt8>, key: SecureBytes, associatedData: [UInt8]) throws -> [UInt8] {
        try plaintext.withSodiumBytes { try seal(bytes: $0, key: key, associatedData: associatedData) }
    }

    /// Seals bytes held in locked memory (a data key being wrapped by the KEK).
    /// - Throws: as ``seal(_:key:associatedData:)``.
    public static func seal(_ plaintext: SecureBytes, key: SecureBytes, associatedData: [UInt8]) throws -> [UInt8] {
        try plaintext.withUnsafeBytes { try seal(bytes: $0, key: key, associatedData: associatedData) }
    }

    /// Verifies and decrypts what ``seal(_:key:associatedData:)`` produced.
    /// - Parameter lifetime: `.brief` for a record opened for one operation (a pooled slot),
    ///   `.long` (the default) for a key that will be kept.
    /// - Returns: the plaintext, in locked memory.
    /// - Throws: ``CryptoError/malformedCiphertext`` when `sealed` is shorter
    ///   than 40 bytes; ``CryptoError/authenticationFailed`` when it was
    ///   altered or the key or associated data differ;
    ///   ``CryptoError/invalidKeyLength(expected:actual:)``.
    public static func open(_ sealed: some Collection<UInt8>, key: SecureBytes, associatedData: [UInt8], lifetime: SecureBytes.Lifetime = .long) throws
        -> SecureBytes
    {
        try checkKey(key)
        guard sealed.count >= overhead else { throw CryptoError.malformedCiphertext }
        return try SecureBytes(count: sealed.count - overhead, lifetime: lifetime) { plaintext in
            let status = sealed.withSodiumBytes { input in
                key.withUnsafeBytes { keyBytes in
                    associatedData.withSodiumBytes { ad in
                        var plaintextLength: UInt64 = 0
                        return crypto_aead_xchacha20poly1305_ietf_decrypt(
                            plaintext.sodiumBytes, &plaintextLength, nil,
                            input.sodiumBytes + nonceLength, UInt64(input.count - nonceLength),
                            ad.sodiumBytes, UInt64(ad.count),
                            input.sodiumBytes, keyBytes.sodiumBytes
                        )
                    }
                }
            }
            guard status == 0 else { throw CryptoError.authenticationFailed }
        }
    }

    private static func seal(bytes message: UnsafeRawBufferPointer, key: SecureBytes, associatedData: [UInt8]) throws -> [UInt8] {
        try checkKey(key)
        var status: Int32 = -1
        let sealed = [UInt8](unsafeUninitializedCapacity: message.count + overhead) { output, initializedCount in
            let nonce = output.baseAddress!
            randombytes_buf(nonce, nonceLength)
            status = key.withUnsafeBytes { keyBytes in
                associatedData.withSodiumBytes { ad in
                    var sealedLength: UInt64 = 0
                    return crypto_aead_xchacha20poly1305_ietf_encrypt(
                        nonce + nonceLength, &sealedLength,
                        message.sodiumBytes, UInt64(message.count),
                        ad.sodiumBytes, UInt64(ad.count),
                        nil, nonce, keyBytes.sodiumBytes
                    )
                }
            }
            initializedCount = output.count
        }
        guard status == 0 else { throw CryptoError.sealFailed }
        return sealed
    }

    private static func checkKey(_ key: SecureBytes) throws {
        try Sodium.ensureInitialized()
        guard key.count == keyLength else {
            throw CryptoError.invalidKeyLength(expected: keyLength, actual: key.count)
        }
    }
}
