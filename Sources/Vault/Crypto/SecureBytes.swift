internal import CSodium

/// Key material and plaintext in locked memory (`mlock`ed, never swapped),
/// zeroed and freed on deinit. `description` shows the length only.
///
/// Two lifetimes (``Lifetime``): `.long` values (keys) get their own
/// `sodium_malloc` allocation with guard pages, filled once while
/// initialising and then made read-only with `sodium_mprotect_readonly`, so a
/// stray write crashes instead of silently changing a key; each costs a few
/// pages and memory mappings. `.brief` values (a record opened for one
/// request) take a slot of a shared locked region instead, which avoids those
/// system calls; they are zeroed when released but not write-protected.
public final class SecureBytes: @unchecked Sendable {
    // @unchecked Sendable is safe: `pointer`, `count` and `slot` are immutable
    // `let`s, the pointed-to bytes are written only inside `init` (before
    // `self` escapes) and never after (read-only page protection for `.long`
    // values; no API writes them for `.brief` ones), so threads sharing an
    // instance only ever read the same bytes. `deinit` runs when no thread
    // holds a reference any more.
    private let pointer: UnsafeMutableRawPointer
    private let slot: Int?

    /// How long a value is meant to live, which decides where it is kept.
    public enum Lifetime: Sendable {
        /// Keys and anything held across requests: an own allocation with guard pages, read-only.
        case long
        /// Plaintext used and dropped within one operation: a slot of the shared locked pool
        /// when one is free and large enough, else as `.long`.
        case brief
    }

    /// The number of bytes held.
    public let count: Int

    /// Allocates `count` zeroed bytes of locked memory and lets `initializer`
    /// fill them before they become read-only.
    ///
    /// This is how secrets are produced without passing through ordinary
    /// memory: decrypt, derive or decode straight into the buffer.
    /// - Throws: ``CryptoError/outOfMemory`` when `sodium_malloc` fails, or
    ///   whatever `initializer` throws (the memory is then wiped and freed).
    public convenience init(count: Int, initializingWith initializer: (UnsafeMutableRawBufferPointer) throws -> Void) throws {
        try self.init(count: count, lifetime: .long, initializingWith: initializer)
    }

    /// Allocates `count` zeroed bytes of locked memory kept as `lifetime` says, and lets
    /// `initializer` fill them.
    /// - Throws: as ``init(count:initializingWith:)``.
    public init(count: Int, lifetime: Lifetime, initializingWith initializer: (UnsafeMutableRawBufferPointer) throws -> Void) throws {
        precondition(count >= 0, "SecureBytes count must not be negative")
        try Sodium.ensureInitialized()
        if lifetime == .brief, let pool = LockedSlotPool.shared, let (slot, pointer) = pool.take(count: count) {
            do {
                try initializer(UnsafeMutableRawBufferPointer(start: pointer, count: count))
            } catch {
                pool.give(back: slot, count: count)
                throw error
            }
            self.pointer = pointer
            self.count = count
            self.slot = slot
            return
        }
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
        self.slot = nil
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
        if let slot, let pool = LockedSlotPool.shared {
            pool.give(back: slot, count: count)
        } else {
            sodium_free(pointer)
        }
    }

    /// True when the bytes sit in a slot of the shared pool (a `.brief` value that got one).
    var isPooled: Bool { slot != nil }

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
