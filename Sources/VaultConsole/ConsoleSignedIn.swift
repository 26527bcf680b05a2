import Vault

/// The operator of the request's live session, with the session's cookie token and CSRF token.
struct ConsoleSignedIn: Sendable {
    var account: Operator
    var token: String
    /// The CSRF token forms of this session carry (``ConsoleSessionToken/csrfToken(for:)``).
    var csrf: String { ConsoleSessionToken.csrfToken(for: token) }

    /// Whether `form` carries this session's CSRF token (compared in constant time).
    func carriesCSRFToken(_ form: ConsoleForm) -> Bool {
        ConsoleSessionToken.csrfTokenMatches(form["csrf"] ?? "", token: token)
    }
}
