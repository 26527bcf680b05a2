/// Why a capture session operation was refused.
public enum CaptureSessionError: Error, Equatable, Sendable {
    /// No session with that id for this merchant (a merchant's own read).
    case notFound
    /// A card submission was refused: unknown session, wrong secret, spent or expired. One case on
    /// purpose: the answer never says which, so a guesser learns nothing from it.
    case refused
}
