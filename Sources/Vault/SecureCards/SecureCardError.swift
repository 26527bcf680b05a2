/// Why a secure-card operation was refused.
public enum SecureCardError: Error, Equatable, Sendable {
    /// No live card with that merchantReference (or token) for this merchant.
    case notFound
    /// The merchantReference already names a live card.
    case referenceTaken(String)
    /// Schedules still charge this card.
    case inUse(scheduleIDs: [String])
    /// The gateway declined the card on verification.
    case verificationDeclined(code: String, category: String)
    /// The gateway could not verify the card.
    case verificationUnavailable(reason: String)
    /// The card data was purged; it cannot be charged or re-verified.
    case purged
    /// The stored record failed its integrity check: its sealed data does not open with the clear
    /// metadata beside it (expiry, masked number, brand, entry mode or fingerprint were edited in
    /// the database, or the blob was replaced). The card is not shown, charged or re-sealed.
    case integrityFailed
}
