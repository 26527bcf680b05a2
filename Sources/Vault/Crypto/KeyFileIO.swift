#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The POSIX calls behind ``MasterKeyFile``: exclusive creation with mode
/// 0600, whole reads and writes, fsync of files and directories.
enum KeyFileIO {
    /// Upper bound for a key file; a larger one is not a key file.
    static let maximumFileSize = 64 * 1024

    /// The error for the failed call `operation` on `path`, from `errno`.
    static func failure(_ operation: String, _ path: String) -> MasterKeyFile.IOError {
        MasterKeyFile.IOError(operation: operation, path: path, code: errno)
    }

    /// Whether anything (even a dangling symlink) exists at `path`.
    static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// Opens `path` read-only without following a symbolic link at its last component
    /// (`O_NOFOLLOW`), or returns `nil` when it does not exist.
    /// - Throws: ``MasterKeyFile/LoadError/symbolicLink(path:)`` for a symbolic link (even a
    ///   dangling one: a link could be re-pointed between the check and the read); ``MasterKeyFile/IOError``.
    static func openForReading(_ path: String) throws -> Int32? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            if errno == ELOOP { throw MasterKeyFile.LoadError.symbolicLink(path: path) }
            throw failure("open", path)
        }
        return descriptor
    }

    /// Closes a descriptor opened by ``openForReading(_:)``.
    static func closeDescriptor(_ descriptor: Int32) {
        _ = close(descriptor)
    }

    /// File type, permission bits, size and owner of an open file.
    static func modeAndSize(_ descriptor: Int32, path: String) throws -> (isRegularFile: Bool, permissions: UInt16, size: Int, owner: UInt32) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw failure("fstat", path) }
        let mode = UInt32(status.st_mode)
        return (mode & 0o170000 == 0o100000, UInt16(mode & 0o7777), Int(status.st_size), UInt32(status.st_uid))
    }

    /// The effective user id of this process: a key file must belong to it.
    static var processOwner: UInt32 { UInt32(geteuid()) }

    /// Reads up to `buffer.count` bytes; returns how many were read before end of file.
    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws -> Int {
        var total = 0
        while total < buffer.count {
            let result = Self.systemRead(descriptor, buffer.baseAddress! + total, buffer.count - total)
            if result < 0 {
                if errno == EINTR { continue }
                throw failure("read", path)
            }
            if result == 0 { break }
            total += result
        }
        return total
    }

    /// Creates `path` exclusively (`O_CREAT|O_EXCL`) with mode 0600, writes
    /// `contents`, fsyncs and closes it. Returns `false` when `path` already
    /// exists. A partly written file is removed before throwing.
    static func createExclusively(_ path: String, contents: UnsafeRawBufferPointer) throws -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST { return false }
            throw failure("create", path)
        }
        do {
            guard fchmod(descriptor, 0o600) == 0 else { throw failure("fchmod", path) }
            try writeAll(descriptor, contents, path: path)
            guard fsync(descriptor) == 0 else { throw failure("fsync", path) }
        } catch {
            close(descriptor)
            unlink(path)
            throw error
        }
        guard close(descriptor) == 0 else {
            let error = failure("close", path)
            unlink(path)
            throw error
        }
        return true
    }

    /// Gives `source` the additional name `destination` (`link(2)`), which
    /// never replaces an existing file.
    /// - Returns: `.unsupported` when the file system has no hard links.
    static func link(_ source: String, to destination: String) throws -> LinkResult {
        if Self.systemLink(source, destination) == 0 { return .linked }
        switch errno {
        case EEXIST: return .destinationExists
        case EPERM, EOPNOTSUPP, ENOSYS, EXDEV: return .unsupported
        default: throw failure("link", destination)
        }
    }

    /// Outcome of ``link(_:to:)``.
    enum LinkResult { case linked, destinationExists, unsupported }

    /// Renames `source` over `destination` atomically.
    static func rename(_ source: String, to destination: String) throws {
        guard Self.systemRename(source, destination) == 0 else { throw failure("rename", destination) }
    }

    /// Removes `path`, ignoring a missing file.
    static func remove(_ path: String) {
        _ = unlink(path)
    }

    /// fsyncs the directory holding `path`, so a new name in it is durable.
    static func syncDirectory(containing path: String) throws {
        let directory = directoryName(of: path)
        let descriptor = open(directory, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("open directory", directory) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure("fsync directory", directory) }
    }

    /// The directory part of `path` (`.` when it has none).
    static func directoryName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = path[..<slash]
        return directory.isEmpty ? "/" : String(directory)
    }

    private static func writeAll(_ descriptor: Int32, _ contents: UnsafeRawBufferPointer, path: String) throws {
        var written = 0
        while written < contents.count {
            let result = Self.systemWrite(descriptor, contents.baseAddress! + written, contents.count - written)
            if result < 0 {
                if errno == EINTR { continue }
                throw failure("write", path)
            }
            written += result
        }
    }

    private static func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.read(descriptor, buffer, count)
        #elseif canImport(Musl)
        Musl.read(descriptor, buffer, count)
        #else
        Darwin.read(descriptor, buffer, count)
        #endif
    }

    private static func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(descriptor, buffer, count)
        #elseif canImport(Musl)
        Musl.write(descriptor, buffer, count)
        #else
        Darwin.write(descriptor, buffer, count)
        #endif
    }

    private static func systemLink(_ source: String, _ destination: String) -> Int32 {
        #if canImport(Glibc)
        Glibc.link(source, destination)
        #elseif canImport(Musl)
        Musl.link(source, destination)
        #else
        Darwin.link(source, destination)
        #endif
    }

    private static func systemRename(_ source: String, _ destination: String) -> Int32 {
        #if canImport(Glibc)
        Glibc.rename(source, destination)
        #elseif canImport(Musl)
        Musl.rename(source, destination)
        #else
        Darwin.rename(source, destination)
        #endif
    }
}
