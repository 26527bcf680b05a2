import Synchronization
import Foundation

extension FakeAuthorizeNetServer {
    /// Reason texts of the reason codes the fake produces.
    static let reasonTexts: [String: String] = [
        "1": "This transaction has been approved.",
        "2": "This transaction has been declined.",
        "4": "The code returned from the processor indicating that the card used needs to be picked up.",
        "5": "A valid amount is required.",
        "39": "The supplied currency code is either invalid, not supported, not allowed for this merchant or doesn't have an exchange rate.",
        "6": "The credit card number is invalid.",
        "7": "Credit card expiration date is invalid.",
        "8": "The credit card has expired.",
        "11": "A duplicate transaction has been submitted.",
        "16": "The transaction cannot be found.",
        "19": "An error occurred during processing. Please try again in 5 minutes.",
        "27": "The transaction has been declined because of an AVS mismatch.",
        "33": "FIELD cannot be left blank.",
        "44": "This transaction has been declined.",
        "47": "The amount requested for settlement cannot be greater than the original amount authorized.",
        "54": "The referenced transaction does not meet the criteria for issuing a credit.",
        "55": "The sum of credits against the referenced transaction would exceed original debit value.",
        "65": "This transaction has been declined.",
        "252": "Your order has been received. Thank you for your business!",
        "253": "Your order has been received. Thank you for your business!",
        "120": "An error occurred during processing. Please try again.",
        "121": "An error occurred during processing. Please try again.",
        "122": "An error occurred during processing. Please try again.",
        "181": "An error occurred during processing. Please try again.",
        "310": "This transaction has already been voided.",
        "311": "This transaction has already been captured.",
    ]

    /// Response codes of the reason codes triggered by card 4222222222222 and amount N.00.
    static let triggeredResponseCodes: [String: String] = [
        "2": "2", "4": "2", "8": "3", "19": "3", "27": "2", "33": "3", "44": "2", "65": "2", "252": "4", "253": "4",
        "120": "3", "121": "3", "122": "3", "181": "3",
    ]

    static let triggerCard = "4222222222222"

    /// Handles `createTransactionRequest`.
    func createTransaction(_ request: FakeJSON) -> FakeJSON {
        let refId = request["refId"]?.text
        guard let transaction = request["transactionRequest"], let type = transaction["transactionType"]?.text else {
            return Self.apiError("E00003", "transactionRequest is missing.")
        }
        let outcome: FakeOutcome = state.withLock { state in
            switch type {
            case "authCaptureTransaction", "authOnlyTransaction": charge(type, transaction, &state)
            case "priorAuthCaptureTransaction": capture(transaction, &state)
            case "voidTransaction": void(transaction, &state)
            case "refundTransaction": refund(transaction, &state)
            default: .error("3", "16", nil)
            }
        }
        writeLedger()
        return Self.transactionReply(outcome, refId: refId)
    }

    /// What a transaction request produced.
    enum FakeOutcome {
        case recorded(FakeAuthorizeNetTransaction)
        case duplicate(FakeAuthorizeNetTransaction?, last4: String)
        /// responseCode, reasonCode, last4.
        case error(String, String, String?)
    }

    private func charge(_ type: String, _ transaction: FakeJSON, _ state: inout FakeAuthorizeNetState) -> FakeOutcome {
        let card = transaction["payment"]?["creditCard"]
        let number = card?["cardNumber"]?.text ?? ""
        let last4 = String(number.suffix(4))
        guard let amountText = transaction["amount"]?.text, let amount = Self.units(amountText), amount > 0 else {
            return .error("3", "5", last4)
        }
        guard (13...16).contains(number.count), number.allSatisfy(\.isASCII), number.allSatisfy(\.isNumber) else {
            return .error("3", "6", last4)
        }
        // Reason 39: "The supplied currency code is either invalid, not supported, not allowed for
        // this merchant or doesn't have an exchange rate." The account takes its own currency only.
        if let currency = transaction["currencyCode"]?.text, currency != state.accountCurrency { return .error("3", "39", last4) }
        guard let expiry = Self.expiry(card?["expirationDate"]?.text ?? "") else { return .error("3", "7", last4) }
        let now = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date())
        if (expiry.year, expiry.month) < (now.year ?? 0, now.month ?? 0) { return .error("3", "8", last4) }
        let cardCode = card?["cardCode"]?.text
        if let cardCode, !(3...4).contains(cardCode.count) || !cardCode.allSatisfy(\.isNumber) {
            return .error("3", "6", last4)
        }
        let zip = transaction["billTo"]?["zip"]?.text
        let invoice = transaction["order"]?["invoiceNumber"]?.text
        let windowGiven = transaction["transactionSettings"]?["setting"].map { settings -> Bool in
            if case let .array(items) = settings { return items.contains { $0["settingName"]?.text == "duplicateWindow" } }
            return settings["settingName"]?.text == "duplicateWindow"
        } ?? false
        let duplicateKey = [type, number, card?["expirationDate"]?.text ?? "", amountText, invoice ?? "",
                            zip ?? "", transaction["billTo"]?["firstName"]?.text ?? "",
                            transaction["billTo"]?["lastName"]?.text ?? ""].joined(separator: "|")
        if let original = state.duplicates[duplicateKey] {
            return .duplicate(windowGiven ? state.transactions[original] : nil, last4: last4)
        }
        var responseCode = "1"
        var reason = "1"
        if zip == "46282" {
            (responseCode, reason) = ("2", "2")
        } else if number == Self.triggerCard, amount % 10_000 == 0, let code = Self.triggeredResponseCodes[String(amount / 10_000)] {
            (responseCode, reason) = (code, String(amount / 10_000))
        }
        if responseCode == "3" { return .error("3", reason, last4) }
        let options: [String] = if case let .object(members) = transaction["processingOptions"] {
            members.filter { ["true", "1"].contains($0.1.text ?? "") }.map(\.0)
        } else {
            []
        }
        let original = transaction["subsequentAuthInformation"]?["originalNetworkTransId"]?.text
        // A merchant-initiated authorization refers to a network transaction id the network issued.
        if options.contains("isSubsequentAuth"), let original, !state.transactions.values.contains(where: { $0.networkTransId == original }) {
            (responseCode, reason) = ("2", "2")
        }
        let cvv = switch cardCode {
        case nil: "P"
        case "901": "N"
        case "904": "P"
        default: "M"
        }
        let status = switch responseCode {
        case "1": type == "authOnlyTransaction" ? "authorizedPendingCapture" : "capturedPendingSettlement"
        case "4": "FDSPendingReview"
        default: "declined"
        }
        let id = state.newTransactionID()
        let record = FakeAuthorizeNetTransaction(
            transId: id, type: type, amount: amount, amountText: amountText, invoiceNumber: invoice, last4: last4,
            status: status, responseCode: responseCode, reasonCode: reason, reasonText: Self.reasonTexts[reason] ?? "",
            authCode: responseCode == "1" ? "A" + String(id.suffix(5)) : "", avs: zip == nil ? "P" : "Y", cvv: cvv,
            captured: status == "capturedPendingSettlement" ? amount : 0, sequence: state.nextSequence(),
            processingOptions: options, originalNetworkTransId: original,
            networkTransId: responseCode == "1" ? "NTI" + String(repeating: "0", count: max(0, 12 - id.count)) + id : nil)
        state.insert(record)
        state.duplicates[duplicateKey] = id
        state.unwritten.append([type, invoice ?? "", id, responseCode].joined(separator: "\t"))
        return .recorded(record)
    }

    private func capture(_ transaction: FakeJSON, _ state: inout FakeAuthorizeNetState) -> FakeOutcome {
        guard let id = transaction["refTransId"]?.text, var original = state.transactions[id] else { return .error("3", "16", nil) }
        switch original.status {
        case "authorizedPendingCapture": break
        // The real API answers these with response code 1 and the original transaction.
        case "voided": return .recorded(Self.repeated(original, reason: "310"))
        case "capturedPendingSettlement", "settledSuccessfully": return .recorded(Self.repeated(original, reason: "311"))
        default: return .error("3", "16", original.last4)
        }
        let amount = transaction["amount"]?.text.flatMap(Self.units) ?? original.amount
        guard amount > 0 else { return .error("3", "5", original.last4) }
        guard amount <= original.amount else { return .error("3", "47", original.last4) }
        original.status = "capturedPendingSettlement"
        original.captured = amount
        state.transactions[id] = original
        var reply = original
        reply.reasonCode = "1"
        reply.reasonText = Self.reasonTexts["1"]!
        reply.responseCode = "1"
        return .recorded(reply)
    }

    private func void(_ transaction: FakeJSON, _ state: inout FakeAuthorizeNetState) -> FakeOutcome {
        guard let id = transaction["refTransId"]?.text, var original = state.transactions[id] else { return .error("3", "16", nil) }
        switch original.status {
        case "authorizedPendingCapture", "capturedPendingSettlement", "refundPendingSettlement", "FDSPendingReview": break
        case "voided": return .recorded(Self.repeated(original, reason: "310"))
        default: return .error("3", "16", original.last4)
        }
        original.status = "voided"
        state.transactions[id] = original
        var reply = original
        reply.reasonCode = "1"
        reply.reasonText = Self.reasonTexts["1"]!
        reply.responseCode = "1"
        return .recorded(reply)
    }

    private func refund(_ transaction: FakeJSON, _ state: inout FakeAuthorizeNetState) -> FakeOutcome {
        guard let id = transaction["refTransId"]?.text, var original = state.transactions[id] else { return .error("3", "16", nil) }
        let number = transaction["payment"]?["creditCard"]?["cardNumber"]?.text ?? ""
        guard original.status == "settledSuccessfully", number.hasSuffix(original.last4),
              let expiration = transaction["payment"]?["creditCard"]?["expirationDate"]?.text,
              expiration == "XXXX" || Self.expiry(expiration) != nil else {
            return .error("3", "54", original.last4)
        }
        guard let amountText = transaction["amount"]?.text, let amount = Self.units(amountText), amount > 0 else {
            return .error("3", "5", original.last4)
        }
        guard amount <= original.captured - original.refunded else { return .error("3", "55", original.last4) }
        let invoice = transaction["order"]?["invoiceNumber"]?.text
        let duplicateKey = ["refundTransaction", id, amountText, invoice ?? ""].joined(separator: "|")
        if let previous = state.duplicates[duplicateKey] {
            return .duplicate(state.transactions[previous], last4: original.last4)
        }
        original.refunded += amount
        state.transactions[id] = original
        let refundID = state.newTransactionID()
        let record = FakeAuthorizeNetTransaction(
            transId: refundID, type: "refundTransaction", amount: amount, amountText: amountText, invoiceNumber: invoice,
            last4: original.last4, status: "refundPendingSettlement", responseCode: "1", reasonCode: "1",
            reasonText: Self.reasonTexts["1"]!, authCode: "", avs: "P", cvv: "", sequence: state.nextSequence(),
            refTransId: id)
        state.insert(record)
        state.duplicates[duplicateKey] = refundID
        return .recorded(record)
    }

    /// The answer to a capture or void already done: response code 1, reason 310 ("already
    /// voided") or 311 ("already captured"), the original transaction's id
    /// (https://developer.authorize.net/api/reference/responseCodes.html lists both as response code 1).
    static func repeated(_ original: FakeAuthorizeNetTransaction, reason: String) -> FakeAuthorizeNetTransaction {
        var reply = original
        reply.responseCode = "1"
        reply.reasonCode = reason
        reply.reasonText = reasonTexts[reason] ?? ""
        return reply
    }

    /// A `createTransactionResponse` in the real API's member order.
    static func transactionReply(_ outcome: FakeOutcome, refId: String?) -> FakeJSON {
        let responseCode: String, reason: String, last4: String
        var record: FakeAuthorizeNetTransaction?
        switch outcome {
        case let .recorded(transaction):
            (responseCode, reason, last4, record) = (transaction.responseCode, transaction.reasonCode, transaction.last4, transaction)
        case let .duplicate(original, digits):
            (responseCode, reason, last4, record) = ("3", "11", digits, original)
        case let .error(code, reasonCode, digits):
            (responseCode, reason, last4) = (code, reasonCode, digits ?? "")
        }
        let text = reasonTexts[reason] ?? "An error occurred."
        let detail: (String, FakeJSON) = responseCode == "1" || responseCode == "4"
            ? ("messages", .array([.object([("code", .string(reason)), ("description", .string(text))])]))
            : ("errors", .array([.object([("errorCode", .string(reason)), ("errorText", .string(text))])]))
        let approvedOriginal = record?.responseCode == "1"
        var transactionResponse: [(String, FakeJSON)] = [
            ("responseCode", .string(responseCode)),
            ("authCode", .string(approvedOriginal ? record?.authCode ?? "" : "")),
            ("avsResultCode", .string(record?.avs ?? "P")),
            ("cvvResultCode", .string(record?.cvv ?? "")),
            ("cavvResultCode", .string("")),
            ("transId", .string(record?.transId ?? "0")),
            ("refTransID", .string(record?.refTransId ?? "")),
            ("transHash", .string("")),
            ("testRequest", .string("0")),
            ("accountNumber", .string("XXXX" + last4)),
            ("accountType", .string("Visa")),
        ]
        transactionResponse.append(detail)
        transactionResponse.append(("transHashSha2", .string("")))
        if case .recorded = outcome, let network = record?.networkTransId { transactionResponse.append(("networkTransId", .string(network))) }
        transactionResponse.append(("SupplementalDataQualificationIndicator", .number("0")))
        let ok = responseCode == "1" || responseCode == "4"
        var members: [(String, FakeJSON)] = [("transactionResponse", .object(transactionResponse))]
        if let refId { members.append(("refId", .string(refId))) }
        members.append(("messages", .object([
            ("resultCode", .string(ok ? "Ok" : "Error")),
            ("message", .array([.object([("code", .string(ok ? "I00001" : "E00027")),
                                         ("text", .string(ok ? "Successful." : "The transaction was unsuccessful."))])])),
        ])))
        return .object(members)
    }

    /// An amount in units of 0.0001, from a decimal string with at most four fraction digits.
    static func units(_ text: String) -> Int? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty, parts[0].allSatisfy(\.isNumber),
              let whole = Int(parts[0]) else { return nil }
        var fraction = 0
        if parts.count == 2 {
            guard (1...4).contains(parts[1].count), parts[1].allSatisfy(\.isNumber) else { return nil }
            fraction = Int(parts[1] + String(repeating: "0", count: 4 - parts[1].count)) ?? 0
        }
        return whole * 10_000 + fraction
    }

    /// The expiry formats the fake accepts: `YYYY-MM` (what the adapter sends) and `MMYY`;
    /// anything else (`12/30`, `2030/12`) is reason 7.
    static func expiry(_ text: String) -> (year: Int, month: Int)? {
        let digits = text.filter(\.isNumber)
        if text.count == 7, text.dropFirst(4).first == "-", digits.count == 6,
           let year = Int(digits.prefix(4)), let month = Int(digits.suffix(2)), (1...12).contains(month) {
            return (year, month)
        }
        if text.count == 4, digits.count == 4, let month = Int(digits.prefix(2)), let year = Int(digits.suffix(2)),
           (1...12).contains(month) {
            return (2000 + year, month)
        }
        return nil
    }
}
