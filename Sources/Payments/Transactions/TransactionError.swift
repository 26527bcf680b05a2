/// Why a transaction request was refused.
public enum TransactionError: Error, Equatable, Sendable {
    /// A field breaks a rule (422).
    case invalid(field: String, code: String, message: String)
    /// No such transaction for this merchant (404).
    case notFound
    /// The original's state does not allow this follow-up, or the request conflicts with what is
    /// recorded (409).
    case notAllowed(code: String, message: String)
    /// The merchant's settings do not allow this (403).
    case notPermitted(code: String, message: String)
    /// The gateway declined (402); the transaction is recorded.
    case declined(Transaction)
    /// The gateway failed or the outcome is unknown (502); the transaction is recorded.
    case gatewayFailed(Transaction)
    /// The merchant's gateway is not usable (missing credentials).
    case gatewayNotConfigured(String)
}
