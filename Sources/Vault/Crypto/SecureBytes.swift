internal import CSodium

/// Key material in `sodium_malloc`'d memory (guard pages, `mlock`ed), zeroed
/// and freed on deinit.
///
/// The bytes are filled once, while initialising, and then made read-only
/// with `sodium_mprotect_readonly`; a stray write crashes instead of silently
/// changing a key. `description` shows the length only.
///
/// Each instance costs a few pages and memory mappings: hold keys and
/// short-lived plaintext in it, not thousands of values at once.
public final class SecureBytes: @unchecked Sendable {
    // @unchecked Sendable is safe: `pointer` and `count` are immutable `let`s,
    // the pointed-to bytes are written only inside `init` (before `self`
    // escapes) and are read-only (page protection) from then on, so threads
    // sharing an instance only ever read the same bytes. `deinit` runs when
    // no thread holds a reference any more.
    private let pointer: UnsafeMutableRawPointer

    /// The number of bytes held.
    public let count: Int

    /// Allocates `count` zeroed bytes of locked memory and lets `initializer`
    /// fill them before they become read-only.
    ///
    /// This is how secrets are produced without passing through ordinary
    /// memory: decrypt, derive or decode straight into the buffer.
    /// - Throws: ``CryptoError/outOfMemory`` when `sodium_malloc` fails, or
    ///   whatever `initializer` throws (the memory is then wiped and freed).
    public init(count: Int, initializingWith initializer: (UnsafeMutableRawBufferPointer) throws -> Void) throws {
        precondition(count >= 0, "SecureBytes count must not be negative")
        try Sodium.ensureInitialized()
        guard let pointer = sodium_malloc(count) else { throw CryptoError.outOfMemory }
        sodium_memzero(pointer, count)
        do {
            try initializer(UnsafeMutableRawBufferPointer(start: pointer, count: count))
        } catch {
            sodium_free(pointer)
            throw error
        }
        _ = sodium_mprotect_readonly(pointer)
        self.pointer = pointer
        self.count = count
    }

    /// Allocates `count` zero bytes of locked memory.
    /// - Throws: ``CryptoError/outOfMemory``.
    public convenience init(count: Int) throws {
        try self.init(count: count) { _ in }
    }

    /// Copies `bytes` into locked memory.
    ///
    /// The source stays where it was: wipe it yourself if it was secret.
    /// - Throws: ``CryptoError/outOfMemory``.
    public convenience init(copying bytes: some Collection<UInt8>) throws {
        try self.init(count: bytes.count) { buffer in
            bytes.withSodiumBytes { source in
                precondition(source.count == buffer.count, "collection changed its count while being copied")
                buffer.copyMemory(from: source)
            }
        }
    }

    /// `count` bytes from libsodium's CSPRNG (`randombytes_buf`), in locked memory.
    /// - Throws: ``CryptoError/outOfMemory``.
    public static func random(count: Int) throws -> SecureBytes {
        try SecureBytes(count: count) { buffer in
            if let base = buffer.baseAddress { randombytes_buf(base, buffer.count) }
        }
    }

    deinit {
        sodium_free(pointer)
    }

    /// Lends the bytes to `body` for reading; the pointer must not escape it.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Copies the bytes into an ordinary array, outside locked memory.
    ///
    /// For plaintext that must leave the vault (a PAN sent to a gateway):
    /// the caller is responsible for how long the copy lives.
    public func copyToArray() -> [UInt8] {
        withUnsafeBytes { Array($0) }
    }

    /// Compares the contents in constant time (`sodium_memcmp`).
    /// Different lengths compare unequal (the length is not secret).
    public func constantTimeEquals(_ other: SecureBytes) -> Bool {
        guard count == other.count else { return false }
        return withUnsafeBytes { mine in
            other.withUnsafeBytes { theirs in
                sodium_memcmp(mine.baseAddress!, theirs.baseAddress!, count) == 0
            }
        }
    }
}

extension SecureBytes: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `SecureBytes(<n> bytes)`: the length, never the contents.
    public var description: String { "SecureBytes(\(count) bytes)" }

    /// The same as ``description``: debuggers and `dump` see no bytes either.
    public var debugDescription: String { description }

    /// A mirror without children, so reflection cannot reach the pointer.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .class) }
}
