/// The salt and the Argon2id cost of a passphrase-derived master key, in `keys/passphrase.salt`.
///
/// The cost is stored with the salt, so a build that raises the default still opens a vault made
/// before, and an auditor sees the cost without reading code. One line of text, mode 0600:
///
///     argon2id v=19 m=262144 t=3 kek=1 salt=<base64 of 16 bytes>
///
/// `v` is the Argon2 version (19 = 0x13), `m` the memory in KiB, `t` the passes, `kek` the master
/// key version the passphrase derives (a passphrase change makes the next one). A file of exactly
/// 16 bytes is the format of earlier builds: those bytes are the salt, made with the moderate cost,
/// as version 1. A cost below ``floor`` is refused, so an edited file cannot make guessing cheaper
/// for the key derived next; one above ``ceiling`` is refused, so it cannot exhaust memory at start.
public struct PassphraseSaltFile: Sendable, Equatable {
    /// The file name inside the keys directory (`passphrase.salt`).
    public static let defaultFileName = "passphrase.salt"
    /// The file a passphrase change writes before it rewraps, renamed over the salt file once
    /// the rewrap has committed (`passphrase.salt.next`).
    public static let pendingFileName = "passphrase.salt.next"
    /// The lowest cost accepted: libsodium's moderate limits (3 passes over 256 MiB), what every
    /// build has made vaults with.
    public static let floor = PassphraseKDF.Cost.moderate
    /// The highest memory accepted (4 GiB) and passes (64).
    public static let ceiling = PassphraseKDF.Cost(opsLimit: 64, memLimit: 4 << 30)
    /// The Argon2 version libsodium implements (1.3, written 19).
    public static let argon2Version = 19

    /// Why a salt file is refused: names the file and the problem, never the salt.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        /// The file.
        public let path: String
        /// What is wrong with it.
        public let reason: String

        public var description: String { "passphrase salt file \(path): \(reason)" }
    }

    /// The Argon2id salt (``PassphraseKDF/saltLength`` bytes).
    public var salt: [UInt8]
    /// Passes and memory the key is derived with.
    public var cost: PassphraseKDF.Cost
    /// The master key version the derived key is.
    public var kekVersion: Int

    /// A salt file's content.
    public init(salt: [UInt8], cost: PassphraseKDF.Cost, kekVersion: Int) {
        self.salt = salt
        self.cost = cost
        self.kekVersion = kekVersion
    }

    /// A fresh random salt at the default cost, for master key version `kekVersion`.
    public static func fresh(kekVersion: Int) -> PassphraseSaltFile {
        PassphraseSaltFile(salt: RandomBytes.make(PassphraseKDF.saltLength), cost: .moderate, kekVersion: kekVersion)
    }

    /// The key ring `passphrase` derives with this salt and cost: one version, ``kekVersion``.
    /// - Throws: ``MasterKeyRingError/emptyPassphrase``; what ``PassphraseKDF/deriveKey(passphrase:salt:cost:)`` throws.
    public func ring(passphrase: String) throws -> MasterKeyRing {
        guard !passphrase.isEmpty else { throw MasterKeyRingError.emptyPassphrase }
        return try MasterKeyRing(keys: [kekVersion: PassphraseKDF.deriveKey(passphrase: passphrase.utf8, salt: salt, cost: cost)])
    }

    /// The file's text (one line).
    public var text: String {
        "argon2id v=\(Self.argon2Version) m=\(cost.memLimit / 1024) t=\(cost.opsLimit) kek=\(kekVersion) salt=\(Encoding.base64(salt))\n"
    }

    /// Reads `bytes`, the content of the file at `path` (named in errors).
    /// - Throws: ``Invalid`` for anything but the two formats, an unknown algorithm or version, or a cost outside ``floor`` ... ``ceiling``.
    public static func parse(_ bytes: [UInt8], path: String) throws -> PassphraseSaltFile {
        if bytes.count == PassphraseKDF.saltLength {
            return PassphraseSaltFile(salt: bytes, cost: .moderate, kekVersion: 1)
        }
        func malformed(_ reason: String) -> Invalid { Invalid(path: path, reason: reason) }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw malformed("not a passphrase salt file") }
        let lines = text.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("#") && !$0.allSatisfy { $0 == " " } }
        guard lines.count == 1 else { throw malformed("expected one line `argon2id v=19 m=<KiB> t=<passes> kek=<version> salt=<base64>`") }
        let words = lines[0].split(separator: " ")
        guard words.first == "argon2id" else { throw malformed("the algorithm must be argon2id") }
        var fields: [String: String] = [:]
        for word in words.dropFirst() {
            let parts = word.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, fields[String(parts[0])] == nil else { throw malformed("expected name=value fields, each once") }
            fields[String(parts[0])] = String(parts[1])
        }
        guard Set(fields.keys) == ["v", "m", "t", "kek", "salt"] else { throw malformed("expected the fields v, m, t, kek and salt") }
        guard fields["v"] == String(argon2Version) else { throw malformed("Argon2 version \(fields["v"] ?? "") is not supported (19)") }
        guard let kib = fields["m"].flatMap({ Int($0) }), let passes = fields["t"].flatMap({ UInt64($0) }),
              let kekVersion = fields["kek"].flatMap({ Int($0) }), kekVersion >= 1, kib >= 0
        else { throw malformed("m, t and kek must be whole numbers (kek at least 1)") }
        // Compared in KiB before anything is multiplied, so no value overflows.
        guard kib <= ceiling.memLimit / 1024, passes <= ceiling.opsLimit else {
            throw malformed("the Argon2id cost m=\(kib) t=\(passes) is above the ceiling m=\(ceiling.memLimit / 1024) t=\(ceiling.opsLimit)")
        }
        guard let salt = try? Encoding.fromBase64(fields["salt"] ?? ""), salt.count == PassphraseKDF.saltLength else {
            throw malformed("the salt must be \(PassphraseKDF.saltLength) bytes in base64")
        }
        let cost = PassphraseKDF.Cost(opsLimit: passes, memLimit: kib * 1024)
        guard cost.memLimit >= floor.memLimit, cost.opsLimit >= floor.opsLimit else {
            throw malformed("the Argon2id cost m=\(kib) t=\(passes) is below the floor m=\(floor.memLimit / 1024) t=\(floor.opsLimit): "
                + "a lowered cost makes guessing the passphrase cheaper; restore the file from the keys backup")
        }
        return PassphraseSaltFile(salt: salt, cost: cost, kekVersion: kekVersion)
    }

    /// Loads the salt file at `path`, opened without following a symbolic link.
    /// - Returns: nil when there is no file.
    /// - Throws: ``Invalid``; ``MasterKeyFile/LoadError/symbolicLink(path:)``; ``MasterKeyFile/IOError``.
    public static func load(path: String) throws -> PassphraseSaltFile? {
        guard let descriptor = try KeyFileIO.openForReading(path) else { return nil }
        defer { KeyFileIO.closeDescriptor(descriptor) }
        let file = try KeyFileIO.modeAndSize(descriptor, path: path)
        guard file.isRegularFile, file.size <= 4096 else { throw Invalid(path: path, reason: "not a passphrase salt file") }
        var bytes = [UInt8](repeating: 0, count: file.size)
        let length = try bytes.withUnsafeMutableBytes { try KeyFileIO.read(descriptor, into: $0, path: path) }
        return try parse(Array(bytes[..<length]), path: path)
    }

    /// Writes the file at `path` atomically (mode 0600): a synced temporary file renamed over it,
    /// then the directory synced.
    /// - Throws: ``MasterKeyFile/IOError``.
    public func write(to path: String) throws {
        let temporary = "\(path).tmp-\(Encoding.hex(RandomBytes.make(8)))"
        try Array(text.utf8).withUnsafeBytes { bytes in
            guard try KeyFileIO.createExclusively(temporary, contents: bytes) else { throw KeyFileIO.failure("create", temporary) }
        }
        do {
            try KeyFileIO.rename(temporary, to: path)
        } catch {
            KeyFileIO.remove(temporary)
            throw error
        }
        try KeyFileIO.syncDirectory(containing: path)
    }

    /// Renames the file at `source` over `destination` atomically and syncs the directory.
    /// - Throws: ``MasterKeyFile/IOError``.
    public static func move(_ source: String, over destination: String) throws {
        try KeyFileIO.rename(source, to: destination)
        try KeyFileIO.syncDirectory(containing: destination)
    }
}
