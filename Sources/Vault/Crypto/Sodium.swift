internal import CSodium

/// One-time initialisation of libsodium for the whole process.
///
/// Every entry point of the crypto layer calls ``ensureInitialized()``; after
/// the first call it costs one load of an already initialised `static let`.
public enum Sodium {
    /// The result of the single `sodium_init()` call: 0 (initialised now),
    /// 1 (already initialised by someone else) or -1 (failure).
    private static let initializationStatus: Int32 = sodium_init()

    /// Initialises libsodium if no call has done so yet.
    /// - Throws: ``CryptoError/initializationFailed`` when `sodium_init()` fails.
    public static func ensureInitialized() throws {
        guard initializationStatus >= 0 else { throw CryptoError.initializationFailed }
    }

    /// For the non-throwing helpers (hashes, encodings, random bytes): a
    /// process in which libsodium cannot start has no safe way to continue.
    static func ensureInitializedOrTrap() {
        precondition(initializationStatus >= 0, "libsodium failed to initialize")
    }
}

extension Collection<UInt8> {
    /// Calls `body` with the bytes in contiguous memory, borrowing the
    /// collection's own storage when it has one and otherwise a temporary
    /// copy that is wiped afterwards (it may hold secrets).
    ///
    /// The buffer's `baseAddress` is never `nil`, even when it is empty:
    /// libsodium 1.0.18 declares most pointers `nonnull`.
    func withSodiumBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        if isEmpty {
            return try withUnsafeTemporaryAllocation(byteCount: 1, alignment: 1) { scratch in
                try body(UnsafeRawBufferPointer(start: scratch.baseAddress!, count: 0))
            }
        }
        if let result = try withContiguousStorageIfAvailable({ try body(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        var copy = Array(self)
        defer { copy.withUnsafeMutableBytes { sodium_memzero($0.baseAddress!, $0.count) } }
        return try copy.withUnsafeBytes(body)
    }
}

extension UnsafeRawBufferPointer {
    /// The start address typed as libsodium's `const unsigned char *`.
    /// Only for buffers whose `baseAddress` is known to be set
    /// (from `withSodiumBytes` or `SecureBytes`).
    var sodiumBytes: UnsafePointer<UInt8> {
        baseAddress!.assumingMemoryBound(to: UInt8.self)
    }

    /// The start address typed as libsodium's `const char *`.
    var sodiumChars: UnsafePointer<CChar> {
        baseAddress!.assumingMemoryBound(to: CChar.self)
    }
}

extension UnsafeMutableRawBufferPointer {
    /// The start address typed as libsodium's `unsigned char *`.
    var sodiumBytes: UnsafeMutablePointer<UInt8> {
        baseAddress!.assumingMemoryBound(to: UInt8.self)
    }
}
