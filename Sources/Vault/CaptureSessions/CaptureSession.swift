public import Foundation

/// A capture session: a one-card registration a merchant's back end prepares so the card itself
/// goes from the cardholder's device (the hosted card field, a mobile app) straight to the vault,
/// never through the merchant's servers.
///
/// The session carries everything registration needs except the card; its client secret can do
/// one thing only: submit one card to it.
public struct CaptureSession: Sendable, Equatable {
    /// Where a session is in its one use.
    public enum Status: String, Sendable, Equatable, CaseIterable {
        /// Waiting for its card.
        case open
        /// A submission holds it: the card is being registered.
        case submitting
        /// Its card is registered (`secureCardReference`).
        case completed
        /// Spent without a card: too many refused cards, or a registration that can never succeed.
        case failed
    }

    /// `cs_` and 160 random bits.
    public var id: String
    /// The merchant that created it.
    public var merchantID: String
    /// As stored; ``status(at:)`` says whether an open session has expired.
    public var status: Status
    /// The web origin allowed to frame the hosted card field (`https://shop.example`).
    public var allowedOrigin: CaptureOrigin
    /// The merchantReference the card is registered under.
    public var merchantReference: String
    /// Verify with the gateway; nil takes the merchant's default.
    public var verify: Bool?
    /// Cards refused so far (the session fails at ``CaptureSessionService/maxAttempts``).
    public var attempts: Int
    /// The card registered through it, once completed.
    public var card: CaptureSessionCard?
    /// When it was created.
    public var createdAt: Date
    /// When it last changed.
    public var updatedAt: Date
    /// After this instant no card is taken.
    public var expiresAt: Date

    /// The status as a client sees it at `now`: an open session past its expiry is `expired`.
    public func status(at now: Date) -> String {
        status == .open && expiresAt <= now ? "expired" : status.rawValue
    }
}

/// What a completed session tells about its card: the token and masked data only.
public struct CaptureSessionCard: Sendable, Equatable {
    /// The token of the registered card (`sc_...`).
    public var secureCardReference: String
    /// `411111******1111`.
    public var maskedNumber: String
    /// The detected brand.
    public var cardType: CardBrand

    /// Creates the summary.
    public init(secureCardReference: String, maskedNumber: String, cardType: CardBrand) {
        self.secureCardReference = secureCardReference
        self.maskedNumber = maskedNumber
        self.cardType = cardType
    }
}

/// A session as both engines store it: the session, the keyed MAC of its client secret and its
/// sealed personal details (customer and custom fields, under the merchant's data key).
public struct CaptureSessionRow: Sendable, Equatable {
    /// The session's clear columns.
    public var session: CaptureSession
    /// Keyed MAC of the client secret and of the row's clear columns (``CaptureSessionSecrets``).
    public var secretMAC: [UInt8]
    /// `SealedCardDetails` of the registration, sealed for this session.
    public var sealedDetails: [UInt8]
    /// The data-key version that sealed `sealedDetails`.
    public var keyVersion: Int

    /// Creates a row.
    public init(session: CaptureSession, secretMAC: [UInt8], sealedDetails: [UInt8], keyVersion: Int) {
        self.session = session
        self.secretMAC = secretMAC
        self.sealedDetails = sealedDetails
        self.keyVersion = keyVersion
    }
}
