import Vault

/// The configured way e-mail receipts leave the vault: the sendmail-compatible program
/// (`receipts.sendmailCommand`) and the sender (`receipts.from`), both checked.
///
/// A request that asks for an e-mail receipt is refused (``ReceiptsNotConfigured``, 422
/// `receipts_not_configured`) unless this can be built at that moment, so the vault never accepts
/// an address it has no way to write to.
public struct ReceiptMailer: Sendable, Equatable {
    /// The program the message is piped to.
    public let command: SendmailCommand
    /// The sender, in `From` with the merchant's name as display name.
    public let from: MailAddress

    /// Creates a mailer from checked parts.
    public init(command: SendmailCommand, from: MailAddress) {
        self.command = command
        self.from = from
    }

    /// The mailer the configuration describes, once its program is an executable file now.
    /// - Parameters:
    ///   - sendmailCommand: the configured command line; nil or blank when none is configured.
    ///   - from: the configured sender; nil when none is configured.
    ///   - field: the request field that asked for a receipt, named in the refusal.
    /// - Throws: ``ReceiptsNotConfigured`` naming `field` and why (never an address).
    public static func configured(sendmailCommand: String?, from: String?, field: String) throws(ReceiptsNotConfigured) -> ReceiptMailer {
        let command: SendmailCommand
        do {
            command = try SendmailCommand(sendmailCommand ?? "")
            try command.checkRunnable()
        } catch {
            throw ReceiptsNotConfigured(field: field, reason: error.description)
        }
        guard let from else { throw ReceiptsNotConfigured(field: field, reason: "no receipts.from sender address configured") }
        guard let sender = MailAddress(from) else { throw ReceiptsNotConfigured(field: field, reason: "receipts.from is not a plain e-mail address") }
        return ReceiptMailer(command: command, from: sender)
    }
}

/// A request asked for an e-mail receipt (`field`) and the vault has no usable mail program or
/// sender: refused with 422 `receipts_not_configured`, nothing changed.
public struct ReceiptsNotConfigured: Error, Equatable, Sendable, CustomStringConvertible {
    /// The request field that asked for the receipt (`receiptEmail`).
    public var field: String
    /// What is missing, naming the program or setting, never an address.
    public var reason: String

    /// Creates the refusal.
    public init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }

    /// The refusal's message.
    public var description: String {
        "\(field) asks for an e-mail receipt, but this vault cannot send e-mail: \(reason)."
    }
}

/// What the vault's configuration says about e-mail receipts, for the services that take
/// requests asking for one: checked on every such request (the program may have been removed).
public struct EmailReceiptSetup: Sendable, Equatable {
    /// The configured command line (`receipts.sendmailCommand`); nil for none.
    public var sendmailCommand: String?
    /// The configured sender (`receipts.from`); nil for none.
    public var from: String?

    /// Creates a setup.
    public init(sendmailCommand: String?, from: String?) {
        self.sendmailCommand = sendmailCommand
        self.from = from
    }

    /// No mail program: every request asking for an e-mail receipt is refused.
    public static let notConfigured = EmailReceiptSetup(sendmailCommand: nil, from: nil)

    /// The mailer, or the refusal naming `field`.
    /// - Throws: ``ReceiptsNotConfigured``.
    public func mailer(field: String = "receiptEmail") throws(ReceiptsNotConfigured) -> ReceiptMailer {
        try ReceiptMailer.configured(sendmailCommand: sendmailCommand, from: from, field: field)
    }

    /// Throws unless a receipt to `address` can be taken now: an address of the form
    /// name@example.com that a message header can carry (no quoted or non-ASCII local part;
    /// `CardDataError`, 422 `invalid_format` naming `field`), and a usable mailer
    /// (``ReceiptsNotConfigured``).
    public func check(_ address: String, field: String) throws {
        try CustomerFieldRules.validateEmail(address, field: field)
        guard MailAddress(address) != nil else {
            throw CardDataError(
                field: field, code: CardDataError.Code.invalidFormat,
                message: "\(field) must be a plain address (no quoted or non-ASCII local part).")
        }
        _ = try mailer(field: field)
    }
}
