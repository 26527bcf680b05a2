import Foundation
import Synchronization

/// The API key credentials this process verified recently, so that a request whose key was
/// verified a moment ago is authenticated without reading the key's row again.
///
/// An entry is used only under the key generation it was read in and for at most ``lifetime``.
/// The database advances the generation (by trigger) whenever a key's row, other than its last
/// use, or a merchant's row changes; every process reads it at most every
/// ``Keyring/generationCheckInterval``; this process's own changes clear the entries at once
/// (``Keyring/apiKeyCredentialsChanged()``). Only credentials that passed every check are kept, and
/// every check (revocation, expiry, the merchant's status, the bearer against the stored secret)
/// is made again on each request against the kept row: what an entry saves is the read.
///
/// The custom-field definitions read with a key are not kept (a registration served from here reads
/// them itself), so a change to them needs no generation of its own.
final class APIKeyCredentialCache: Sendable {
    /// The longest an entry is used, whatever the generation says (a generation that cannot be
    /// read keeps its last value).
    static let lifetime: TimeInterval = 60
    /// Past this many keys the entries are dropped and kept again as keys are used.
    static let capacity = 10_000

    private struct Entry {
        var key: StoredAPIKey
        var merchant: Merchant
        var readAt: Date
        var generation: Int64
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// The key `keyID` and its merchant kept under `generation`, read no earlier than ``lifetime``
    /// before `now`; nil (and the entry dropped) otherwise.
    func credential(keyID: String, generation: Int64, now: Date) -> (key: StoredAPIKey, merchant: Merchant)? {
        entries.withLock { entries in
            guard let entry = entries[keyID] else { return nil }
            guard entry.generation == generation, now >= entry.readAt, now.timeIntervalSince(entry.readAt) < Self.lifetime else {
                entries[keyID] = nil
                return nil
            }
            return (entry.key, entry.merchant)
        }
    }

    /// Keeps `key` and its `merchant`, read at `readAt` under `generation`, which passed every check.
    func remember(_ key: StoredAPIKey, merchant: Merchant, generation: Int64, readAt: Date) {
        entries.withLock { entries in
            if entries.count >= Self.capacity, entries[key.record.id] == nil { entries.removeAll(keepingCapacity: true) }
            entries[key.record.id] = Entry(key: key, merchant: merchant, readAt: readAt, generation: generation)
        }
    }

    /// Drops every entry.
    func removeAll() {
        entries.withLock { $0.removeAll() }
    }
}
