public import Vault

/// Makes sure a card's merchant-initiated charges have a customer-initiated first use to refer to
/// before a schedule may charge it: the card networks' stored-credential rules want every
/// merchant-initiated charge to carry the network transaction id of the first use of the same card
/// number, made with the cardholder present and the credential stored.
public protocol FirstUseCheck: Sendable {
    /// Returns when the card `secureCardReference` has a first use of its current number on file with
    /// the merchant's gateway, making one (a verification) where that is the merchant's way.
    /// - Throws: ``ScheduleError/storedCredentialMissing(secureCardReference:merchantReference:)``
    ///   when none is on file and none could be made; card and gateway errors of the verification.
    func ensureFirstUse(secureCardReference: String, merchant: Merchant, actor: String) async throws
}
