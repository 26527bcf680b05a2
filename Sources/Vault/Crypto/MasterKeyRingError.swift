/// Why a set of master key versions is not a usable ``MasterKeyRing``.
public enum MasterKeyRingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No key at all.
    case noKeys
    /// A version below 1.
    case invalidVersion(Int)
    /// The same version given twice (in `VAULT_MASTER_KEY`).
    case duplicateVersion(Int)
    /// An empty passphrase, which would make a guessable KEK.
    case emptyPassphrase

    /// A message naming the problem; never key bytes.
    public var description: String {
        switch self {
        case .noKeys: "master key ring has no keys"
        case .invalidVersion(let version): "master key version \(version) is invalid: versions start at 1"
        case .duplicateVersion(let version): "master key version \(version) appears more than once"
        case .emptyPassphrase: "master key passphrase is empty"
        }
    }
}
