import ArgumentParser

/// The operations the instruction budgets cover.
enum BudgetOperation: String, CaseIterable, ExpressibleByArgument, Sendable {
    /// A card registration through `SecureCardService`, as the API's handler calls it.
    case register
    /// A card retrieved by its token through `SecureCardService`, with the read's audit event
    /// committed before the next retrieval.
    case retrieve
    /// One due step charged by the charge runner against the in-process sandbox gateway (N due
    /// steps in one run).
    case chargeStep = "charge-step"
    /// `POST /v1/secure-cards` through the server's router (every middleware, JSON in and out),
    /// in-process, without a socket.
    case httpRegister = "http-register"
    /// The load script's registration body parsed, checked against the API contract and decoded
    /// as the server's handler does (`JSONCoding`, the operation's lookup included), with no
    /// vault: the request-body stage of a registration alone.
    case decodeBody = "decode-body"
}
