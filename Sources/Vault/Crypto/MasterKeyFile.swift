/// The master key-encryption key file(s) under `keys/`.
///
/// File format (text, mode 0600): lines starting with `#` are comments;
/// each key line is `<version> <base64 of 32 bytes>`; versions start at 1
/// and the highest is current. The file is read into locked memory and
/// parsed there, so key bytes never pass through ordinary memory.
public struct MasterKeyFile: Sendable {
    /// The file name inside the keys directory (`master.key`).
    public static let defaultFileName = "master.key"

    /// Why a key file could not be loaded. Messages name the path and the
    /// problem, never key bytes.
    public enum LoadError: Error, Equatable, CustomStringConvertible {
        /// No file at `path`.
        case missing(path: String)
        /// The file is readable or writable by group or others (`mode & 0o077 != 0`).
        case insecurePermissions(path: String, mode: UInt16)
        /// Line `line` (1-based; 0 for the file as a whole) is not a valid key line.
        case malformed(path: String, line: Int, reason: String)
        /// The file holds no key line.
        case empty(path: String)
        /// The path is a symbolic link; key files are opened without following links.
        case symbolicLink(path: String)
        /// The file belongs to another user than the one running the vault.
        case wrongOwner(path: String, owner: UInt32, expected: UInt32)

        /// A message for operators: path, problem and remedy.
        public var description: String {
            switch self {
            case .missing(let path):
                "master key file \(path) does not exist (create it with `vault keys init`)"
            case .insecurePermissions(let path, let mode):
                "master key file \(path) has mode \(Self.octal(mode)); it must not be accessible by group or others (chmod 600 \(path))"
            case .malformed(let path, let line, let reason):
                line > 0 ? "master key file \(path), line \(line): \(reason)" : "master key file \(path): \(reason)"
            case .empty(let path):
                "master key file \(path) contains no keys"
            case .symbolicLink(let path):
                "master key file \(path) is a symbolic link; key files are not read through links (put the file itself there)"
            case .wrongOwner(let path, let owner, let expected):
                "master key file \(path) belongs to uid \(owner), not to uid \(expected) running the vault (chown \(expected) \(path))"
            }
        }

        private static func octal(_ mode: UInt16) -> String {
            let digits = String(mode, radix: 8)
            return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        }
    }

    /// A file-system call that failed while reading or writing a key file.
    public struct IOError: Error, Equatable, CustomStringConvertible {
        /// The call, e.g. `"open"`, `"rename"`.
        public let operation: String
        /// The path it was called on.
        public let path: String
        /// The `errno` value.
        public let code: Int32

        /// `"<operation> <path> failed: errno <code>"`.
        public var description: String { "\(operation) \(path) failed: errno \(code)" }
    }

    /// Loads every version from the key file at `path`.
    ///
    /// The file is opened without following a symbolic link; its type, owner (the process's
    /// effective uid) and permissions are checked on the opened file before a byte is read.
    /// - Parameter owner: the uid the file must belong to (the process's, unless a test says otherwise).
    /// - Throws: ``LoadError``; ``IOError``; ``CryptoError/outOfMemory``.
    public static func load(path: String, owner: UInt32? = nil) throws -> MasterKeyRing {
        guard let descriptor = try KeyFileIO.openForReading(path) else { throw LoadError.missing(path: path) }
        defer { KeyFileIO.closeDescriptor(descriptor) }
        let file = try KeyFileIO.modeAndSize(descriptor, path: path)
        guard file.isRegularFile else { throw LoadError.malformed(path: path, line: 0, reason: "not a regular file") }
        let expectedOwner = owner ?? KeyFileIO.processOwner
        guard file.owner == expectedOwner else { throw LoadError.wrongOwner(path: path, owner: file.owner, expected: expectedOwner) }
        guard file.permissions & 0o077 == 0 else {
            throw LoadError.insecurePermissions(path: path, mode: file.permissions)
        }
        guard file.size <= KeyFileIO.maximumFileSize else {
            throw LoadError.malformed(path: path, line: 0, reason: "larger than \(KeyFileIO.maximumFileSize) bytes")
        }
        var length = 0
        let contents = try SecureBytes(count: file.size) { buffer in
            length = try KeyFileIO.read(descriptor, into: buffer, path: path)
        }
        return try contents.withUnsafeBytes { bytes in
            try parse(UnsafeRawBufferPointer(rebasing: bytes[..<length]), path: path)
        }
    }

    /// Creates the file with one random version-1 key, mode 0600, never
    /// overwriting: the content is written and synced under a temporary name,
    /// then published with `link(2)` (or `O_CREAT|O_EXCL` where the file
    /// system has no hard links), so no reader ever sees a partial file.
    /// - Returns: `false`, changing nothing, when `path` already exists.
    /// - Throws: ``IOError`` (for example when the directory is missing);
    ///   ``CryptoError/outOfMemory``.
    @discardableResult
    public static func createIfAbsent(path: String) throws -> Bool {
        guard !KeyFileIO.exists(path) else { return false }
        let ring = try MasterKeyRing(keys: [1: SecureBytes.random(count: MasterKeyRing.keyLength)])
        let contents = try serialize(ring)
        let temporary = temporaryPath(for: path)
        let published: Bool = try contents.withUnsafeBytes { bytes in
            guard try KeyFileIO.createExclusively(temporary, contents: bytes) else {
                throw KeyFileIO.failure("create", temporary)
            }
            defer { KeyFileIO.remove(temporary) }
            switch try KeyFileIO.link(temporary, to: path) {
            case .linked: return true
            case .destinationExists: return false
            case .unsupported: return try KeyFileIO.createExclusively(path, contents: bytes)
            }
        }
        try KeyFileIO.syncDirectory(containing: path)
        return published
    }

    /// Atomically replaces the file at `path` with all versions of `ring`:
    /// a temporary file (mode 0600) in the same directory is written and
    /// fsynced, renamed over `path`, and the directory is fsynced.
    /// - Throws: ``IOError``; ``CryptoError/outOfMemory``.
    public static func write(_ ring: MasterKeyRing, to path: String) throws {
        let contents = try serialize(ring)
        let temporary = temporaryPath(for: path)
        try contents.withUnsafeBytes { bytes in
            guard try KeyFileIO.createExclusively(temporary, contents: bytes) else {
                throw KeyFileIO.failure("create", temporary)
            }
        }
        do {
            try KeyFileIO.rename(temporary, to: path)
        } catch {
            KeyFileIO.remove(temporary)
            throw error
        }
        try KeyFileIO.syncDirectory(containing: path)
    }

    private static func temporaryPath(for path: String) -> String {
        "\(path).tmp-\(Encoding.hex(RandomBytes.make(8)))"
    }
}
