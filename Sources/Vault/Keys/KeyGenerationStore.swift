/// A counter the key-changing operations advance (`keys rotate`, `keys rotate --data`, data-key
/// destruction, off-boarding), so every process on the same database notices a change made by
/// another one with one small read every few seconds instead of a key read per request.
///
/// A `KeyStore` that also conforms to this protocol lets ``Keyring`` keep "the newest version" of
/// each merchant's key until the generation moves (a key change made through any server);
/// without it the keyring rereads the newest version every ``Keyring/newestVersionInterval``.
public protocol KeyGenerationStore: Sendable {
    /// The current generation (0 when never advanced).
    func keyGeneration() async throws -> Int64
    /// Advances the generation by one and returns the new value.
    func advanceKeyGeneration() async throws -> Int64
}
