/// Why an operator command or a sign-in was refused. Never carries a password, code or secret.
public enum OperatorError: Error, Equatable, CustomStringConvertible {
    /// The name is not 1-64 letters, digits, `.`, `_` or `-`.
    case invalidName
    /// Another operator has this name.
    case nameTaken(String)
    /// No operator has this name.
    case notFound(String)
    /// A `--merchant` names no merchant.
    case unknownMerchant(String)
    /// The password is below the floor.
    case weakPassword(OperatorPassword.Weakness)
    /// Wrong name, password or code, a disabled or locked account, or a code already used: one
    /// answer for all, so a sign-in page tells an attacker nothing.
    case signInRefused

    public var description: String {
        switch self {
        case .invalidName: "an operator name is 1-64 letters, digits, '.', '_' or '-'"
        case .nameTaken(let name): "an operator named \(name) exists already"
        case .notFound(let name): "no operator is named \(name)"
        case .unknownMerchant(let name): "no merchant is named \(name)"
        case .weakPassword(let weakness): weakness.description
        case .signInRefused: "the name, password or authentication code is not right, or the account is locked"
        }
    }
}
