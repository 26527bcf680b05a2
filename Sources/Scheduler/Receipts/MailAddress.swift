/// An e-mail address fit to be written into a message header: one `@` between a non-empty local
/// part and a domain, printable ASCII only (no CR, LF, space, quote, comma, angle bracket or other
/// character that would end the address or start another header), at most 254 characters with a
/// local part of at most 64, as SMTP allows.
///
/// Anything else is refused rather than repaired, so an address read from a request or the
/// configuration can never add a header or a recipient to a receipt.
public struct MailAddress: Sendable, Equatable, CustomStringConvertible {
    /// The address as given, already checked.
    public let value: String

    /// The characters an address may hold besides letters and digits: those of an unquoted
    /// local part (RFC 5322 `atext`) and `.`, `@`, `-`, `[`, `]` and `:` of a domain literal. No
    /// quoted local parts: nobody's receipt needs one.
    private static let allowed = Set("!#$%&'*+-/=?^_`{|}~.@[]:")

    /// Checks `text`; nil when it is not a single plain address.
    public init?(_ text: String) {
        guard text.utf8.count <= 254, text.unicodeScalars.allSatisfy({ $0.isASCII }) else { return nil }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, let local = parts.first, let domain = parts.last,
            !local.isEmpty, local.utf8.count <= 64, !domain.isEmpty, domain.contains(".") || domain.hasPrefix("[")
        else { return nil }
        guard text.allSatisfy({ $0.isLetter || $0.isNumber || Self.allowed.contains($0) }) else { return nil }
        guard !local.hasPrefix("."), !local.hasSuffix("."), !local.contains(".."), !domain.hasPrefix("."), !domain.hasSuffix(".") else {
            return nil
        }
        value = text
    }

    /// The part after the `@`, used to name the message's `Message-ID`.
    public var domain: Substring { value[value.index(after: value.firstIndex(of: "@") ?? value.startIndex)...] }

    /// The address as lists show it: the local part's first character, `***`, then the domain
    /// (`a***@example.org`), enough for an operator to tell receipts apart, not to write to anyone.
    public var masked: String {
        String(value.prefix(1)) + "***@" + domain
    }

    /// The address itself.
    public var description: String { value }
}
