#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The database's place on disk: its directory (0700) and its files (the database, `-wal` and
/// `-shm`, 0600). SQLite gives the `-wal` and `-shm` files the mode of the database file, so
/// creating that file 0600 before SQLite opens it keeps all three private from other local users.
public enum DatabaseFiles {
    /// A group- or world-accessible directory or file, with the command that fixes it.
    public struct InsecurePermissions: Error, Equatable, Sendable, CustomStringConvertible {
        /// The paths that are too open, each with its mode.
        public let findings: [Finding]

        /// One path and its permission bits.
        public struct Finding: Equatable, Sendable {
            /// The directory or file.
            public let path: String
            /// Its permission bits (e.g. 0o644).
            public let mode: UInt16
            /// Whether it is the directory (wants 0700) rather than a file (wants 0600).
            public let isDirectory: Bool
        }

        public var description: String {
            let listed = findings.map { "\($0.path) is mode \(String($0.mode, radix: 8))" }.joined(separator: ", ")
            let fixes = findings.map { "chmod \($0.isDirectory ? "700" : "600") '\($0.path)'" }.joined(separator: " && ")
            return "the database files are accessible to group or others (\(listed)); they hold card data: fix with \(fixes)"
        }
    }

    /// A file-system call that failed, with its errno.
    public struct IOError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The call (`mkdir`, `open`).
        public let operation: String
        /// The path it was given.
        public let path: String
        /// errno.
        public let code: Int32

        public var description: String { "\(operation) \(path) failed: errno \(code)" }
    }

    /// The files SQLite keeps for the database at `path`.
    public static func files(of path: String) -> [String] {
        [path, path + "-wal", path + "-shm"]
    }

    /// The directory holding `path` ("." for a bare file name).
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    /// Creates what is missing with private modes: the directory (and its missing parents) 0700,
    /// the database file 0600 (opened with `O_NOFOLLOW`, never through a symbolic link).
    /// Existing files and directories are left as they are; ``check(path:)`` judges them.
    /// - Throws: ``IOError``.
    public static func prepare(path: String) throws {
        guard path != ":memory:" else { return }
        try makeDirectories(directory(of: path))
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            close(descriptor)
            return
        }
        let code = errno
        var status = stat()
        guard code == EEXIST, lstat(path, &status) == 0 else { throw IOError(operation: "open", path: path, code: code) }
        if status.st_mode & S_IFMT == S_IFLNK { throw IOError(operation: "open (a symbolic link)", path: path, code: ELOOP) }
    }

    /// Checks that the database directory and every existing database file are neither group- nor
    /// world-accessible.
    /// - Throws: ``InsecurePermissions`` naming each offender and the `chmod` that fixes it.
    public static func check(path: String) throws {
        var findings: [InsecurePermissions.Finding] = []
        let directory = directory(of: path)
        if let mode = mode(of: directory), mode & 0o077 != 0 {
            findings.append(.init(path: directory, mode: mode, isDirectory: true))
        }
        for file in files(of: path) {
            if let mode = mode(of: file), mode & 0o077 != 0 {
                findings.append(.init(path: file, mode: mode, isDirectory: false))
            }
        }
        if !findings.isEmpty { throw InsecurePermissions(findings: findings) }
    }

    /// The permission bits of `path`, or nil when it does not exist.
    public static func mode(of path: String) -> UInt16? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return UInt16(truncatingIfNeeded: status.st_mode & 0o7777)
    }

    private static func makeDirectories(_ directory: String) throws {
        if mode(of: directory) != nil { return }
        let parent = self.directory(of: directory)
        if parent != directory { try makeDirectories(parent) }
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw IOError(operation: "mkdir", path: directory, code: errno)
        }
    }
}
