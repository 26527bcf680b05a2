import Foundation

/// The text of one statement as UTF-8 bytes: what `SQLiteQuery` builds from its literal pieces
/// and placeholders, and the key of a connection's statement cache.
///
/// A statement's text is built again at every execution (its interpolations bind values, so the
/// literal is evaluated each time), then looked up in the cache. Appending the pieces to a `String`
/// cost a write about a ninth of its instructions on the writer thread (Swift's string append
/// checks and updates the string's encoding flags and capacity at every piece). Here a literal
/// piece is a `StaticString` copied with one `memcpy` into one buffer, the text is hashed in one
/// call and compared with one `memcmp`, and a `String` is made only when SQLite prepares the text
/// (a cache miss) or an error reports it. The buffer is a class of its own with non-generic
/// methods, not an `[UInt8]` or a `ManagedBuffer`, because the debug build (whose instruction
/// counts are the budget's measure) runs generic code unspecialized.
///
/// `@unchecked Sendable`: the storage is written only through the one value that holds the only
/// reference to it (`reserve` copies it first otherwise), so a storage that two values or two
/// threads can see is never written again: the copy-on-write rule of the standard collections.
public struct SQLText: Hashable, @unchecked Sendable {
    /// Owns the buffer (frees it when the last value holding it goes).
    private var storage: Storage
    /// The buffer's start and size, kept here so that appending reads no class property (each
    /// such read is a dynamic exclusivity check in the debug build).
    private var start: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// The bytes of the buffer that are this value's text: a value shares its buffer with its
    /// copies, and appends past its own count only while it holds the buffer alone.
    private var count = 0

    /// An empty text with room for `capacity` bytes.
    init(capacity: Int = 0) {
        storage = Storage(capacity: Swift.max(capacity, 16))
        start = storage.start
        self.capacity = storage.capacity
    }

    /// `text`'s bytes.
    init(_ text: String) {
        self.init(capacity: text.utf8.count)
        append(text)
    }

    /// The text as a `String`, for SQLite's prepare and for errors.
    public var string: String {
        withExtendedLifetime(storage) {
            String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
        }
    }

    /// Appends a literal's UTF-8 bytes.
    mutating func append(_ literal: StaticString) {
        if literal.hasPointerRepresentation {
            append(literal.utf8Start, count: literal.utf8CodeUnitCount)
        } else {
            append(String(literal.unicodeScalar))
        }
    }

    /// Appends `text`'s UTF-8 bytes.
    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append($0.baseAddress, count: $0.count) }
    }

    /// Appends another text's bytes.
    mutating func append(_ other: SQLText) {
        withExtendedLifetime(other.storage) {
            append(other.start, count: other.count)
        }
    }

    /// Appends one `?`, where an argument binds.
    mutating func appendPlaceholder() {
        reserve(1)
        start[count] = UInt8(ascii: "?")
        count += 1
    }

    /// Appends `, ?` (the second and later placeholders of an `IN` list).
    mutating func appendListedPlaceholder() {
        reserve(3)
        start[count] = UInt8(ascii: ",")
        start[count + 1] = UInt8(ascii: " ")
        start[count + 2] = UInt8(ascii: "?")
        count += 3
    }

    public func hash(into hasher: inout Hasher) {
        withExtendedLifetime(storage) {
            hasher.combine(bytes: UnsafeRawBufferPointer(start: start, count: count))
        }
    }

    public static func == (lhs: SQLText, rhs: SQLText) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return withExtendedLifetime((lhs.storage, rhs.storage)) {
            memcmp(lhs.start, rhs.start, lhs.count) == 0
        }
    }

    private mutating func append(_ bytes: UnsafePointer<UInt8>?, count added: Int) {
        guard let bytes, added > 0 else { return }
        reserve(added)
        UnsafeMutableRawPointer(start + count).copyMemory(from: bytes, byteCount: added)
        count += added
    }

    /// Makes the buffer this value's alone with room for `extra` more bytes (copy on write): a
    /// buffer another value also holds is never written.
    private mutating func reserve(_ extra: Int) {
        let needed = count + extra
        if needed <= capacity && isKnownUniquelyReferenced(&storage) { return }
        let copy = Storage(capacity: Swift.max(needed, capacity * 2))
        UnsafeMutableRawPointer(copy.start).copyMemory(from: start, byteCount: count)
        storage = copy
        start = copy.start
        capacity = copy.capacity
    }
}

extension SQLText {
    /// A text's buffer of `capacity` bytes at `start`, freed with the last value that holds it.
    final class Storage {
        let start: UnsafeMutablePointer<UInt8>
        let capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
            start = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        }

        deinit {
            start.deallocate()
        }
    }
}
