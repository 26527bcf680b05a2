import Foundation
import Payments
import Synchronization

/// One transaction the NMI fake keeps.
struct FakeNMITransaction: Sendable {
    struct Action: Sendable {
        var type: String
        var amountText: String
        var success: Bool
        var responseCode: String
        var responseText: String
    }

    var transactionID: String
    var type: String
    var orderID: String
    var amount: Int
    var amountText: String
    var currency: String
    var condition: String
    var authCode: String
    var avs: String
    var cvv: String
    var last4: String
    var captured = 0
    var refunded = 0
    var actions: [Action]
    var sequence: Int
    /// For a refund: the transaction refunded (the Query API's `original_transaction_id`).
    var originalTransactionID: String? = nil
    /// The credential-on-file fields sent (`initiated_by`, `stored_credential_indicator`,
    /// `billing_method`, `initial_transaction_id`).
    var storedCredential: [String: String] = [:]

    /// The transaction as the Query API shows it.
    var xml: String {
        func element(_ name: String, _ value: String) -> String { "<\(name)>\(FakeNMITransaction.escape(value))</\(name)>" }
        var text = "<transaction>"
        text += element("transaction_id", transactionID) + element("partial_payment_id", "")
        text += element("platform_id", "") + element("transaction_type", "cc") + element("condition", condition)
        text += element("order_id", orderID) + element("authorization_code", authCode)
        text += element("order_description", "Fake & order <\(sequence)>") + element("cc_number", "4xxxxxxxxxxx" + last4)
        text += element("avs_response", avs) + element("csc_response", cvv) + element("currency", currency.lowercased())
        text += element("original_transaction_id", originalTransactionID ?? "")
        for action in actions {
            text += "<action>" + element("amount", action.amountText) + element("action_type", action.type)
            text += element("date", "20300101100000") + element("success", action.success ? "1" : "0")
            text += element("source", "api") + element("response_text", action.responseText)
            text += element("response_code", action.responseCode) + "</action>"
        }
        return text + "</transaction>\n"
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}

/// The NMI fake's mutable state.
struct FakeNMIState {
    var nextTransactionID = 9_100_000_001
    var sequence = 0
    var transactions: [String: FakeNMITransaction] = [:]
    /// Approved and declined charges by card number and amount, with when they were made, for
    /// NMI's duplicate check.
    var recentCharges: [String: Date] = [:]
    /// Whether `dup_seconds` is honoured (the processor's "Allow Merchant Override").
    var allowsDuplicateOverride = true
    /// Added to the wall clock (tests move time forward instead of waiting).
    var clockOffset: TimeInterval = 0

    var now: Date { Date().addingTimeInterval(clockOffset) }
}

/// A Direct Post answer.
struct FakeNMIReply {
    var response: String
    var text: String
    var authCode = ""
    var transactionID = ""
    var avs = ""
    var cvv = ""
    var orderID = ""
    var type = ""
    var code: String

    static func rejected(_ text: String, type: String?) -> FakeNMIReply {
        FakeNMIReply(response: "3", text: text + " REFID:3000000001", type: type ?? "", code: "300")
    }

    /// `response=1&responsetext=SUCCESS&...&response_code=100`, in NMI's field order.
    var form: String {
        [("response", response), ("responsetext", text), ("authcode", authCode), ("transactionid", transactionID),
         ("avsresponse", avs), ("cvvresponse", cvv), ("orderid", orderID), ("type", type), ("response_code", code)]
            .map { $0.0 + "=" + FakeNMIForm.encode($0.1) }.joined(separator: "&")
    }
}

extension FakeNMIServer {
    /// Result code texts of the fake-only amount triggers.
    static let codeTexts: [String: String] = [
        "200": "DECLINE", "201": "Do not honor", "202": "Insufficient funds", "203": "Over limit",
        "204": "Transaction not allowed", "220": "Incorrect payment information", "223": "Expired card",
        "225": "Invalid card security code", "250": "Pick up card", "251": "Lost card", "252": "Stolen card",
        "253": "Fraudulent card", "261": "Declined-Stop all recurring payments", "264": "Declined-Retry in a few days",
        "400": "Transaction error returned by processor", "410": "Invalid merchant configuration",
        "420": "Communication error", "421": "Communication error with issuer", "430": "Duplicate transaction at processor",
        "440": "Processor format error", "441": "Invalid transaction information",
    ]

    /// Result codes after which the charge may stand at the processor (kept as a failed transaction).
    static let mayStandCodes: Set<String> = ["400", "420", "421"]

    /// NMI's default duplicate window: 1,200 s
    /// (https://support.nmi.com/hc/en-gb/articles/15002942676881-Duplicate-Transaction-Error).
    static let defaultDuplicateSeconds: TimeInterval = 1_200

    /// NMI's Payment API rate-limit answer (https://docs.nmi.dev/reference/rate-limiting).
    static let rateLimitReply = FakeNMIReply(response: "3", text: "Rate limit exceeded", code: "301")

    func process(_ fields: [String: String], _ state: inout FakeNMIState) -> FakeNMIReply {
        let type = fields["type"] ?? ""
        switch type {
        case "sale", "auth", "validate", "credit": return charge(type, fields, &state)
        case "capture", "void", "refund": return followUp(type, fields, &state)
        default: return .rejected("Invalid Transaction Type", type: type)
        }
    }

    private func charge(_ type: String, _ fields: [String: String], _ state: inout FakeNMIState) -> FakeNMIReply {
        let number = fields["ccnumber"] ?? ""
        guard (13...19).contains(number.count), number.allSatisfy(\.isNumber), Self.luhn(number) else {
            return .rejected("Invalid Credit Card Number", type: type)
        }
        let expiry = fields["ccexp"] ?? ""
        guard expiry.count == 4, expiry.allSatisfy(\.isNumber), let month = Int(expiry.prefix(2)), (1...12).contains(month),
              let year = Int(expiry.suffix(2)) else {
            return .rejected("Invalid Credit Card Expiration Date", type: type)
        }
        if let cvv = fields["cvv"], !(3...4).contains(cvv.count) || !cvv.allSatisfy(\.isNumber) {
            return .rejected("Invalid Card Security Code", type: type)
        }
        let amountText = fields["amount"] ?? (type == "validate" ? "0.00" : "")
        guard Self.isDocumentedAmount(amountText), let amount = Self.units(amountText), type == "validate" ? amount == 0 : amount > 0 else {
            return .rejected("Invalid amount", type: type)
        }
        if let problem = Self.storedCredentialProblem(fields, state) { return .rejected(problem, type: type) }
        if let currency = fields["currency"], currency.count != 3 || !currency.allSatisfy({ $0.isUppercase }) {
            return .rejected("Invalid currency", type: type)
        }
        let orderID = fields["orderid"] ?? ""
        // NMI's duplicate check: the same card and amount within `dup_seconds` (1,200 s by default;
        // 0 disables it when the override is allowed), whatever the order id.
        let duplicateKey = number + "|" + String(amount)
        var window: TimeInterval = FakeNMIServer.defaultDuplicateSeconds
        if state.allowsDuplicateOverride, let text = fields["dup_seconds"], let seconds = Int(text), (0...7_862_400).contains(seconds) {
            window = TimeInterval(seconds)
        }
        if type != "validate", window > 0, let previous = state.recentCharges[duplicateKey],
           state.now.timeIntervalSince(previous) < window {
            return .rejected("Duplicate transaction", type: type)
        }
        var code = "100"
        let now = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date())
        if (2000 + year, month) < (now.year ?? 0, now.month ?? 0) {
            code = "223"
        } else if type != "validate", amount < 1_000 {
            code = "200"
        } else if amount % 1_000 == 0, let text = Self.codeTexts[String(amount / 1_000)], text != "" {
            code = String(amount / 1_000)
        }
        let response = code == "100" ? "1" : code.hasPrefix("2") ? "2" : "3"
        let cvv = fields["cvv"].map { $0 == "999" ? "M" : "N" } ?? ""
        let avs = fields["address1"] == "888" && fields["zip"] == "77777" ? "Y" : fields["zip"] == nil ? "" : "N"
        let text = response == "1" ? "SUCCESS" : Self.codeTexts[code] ?? "DECLINE"
        var reply = FakeNMIReply(response: response, text: text, avs: avs, cvv: cvv, orderID: orderID, type: type, code: code)
        // A processor error (400) or a communication error with the processor or issuer (420, 421)
        // may follow an approval that never came back: NMI keeps the transaction, failed with that
        // code, and the processor may hold the money, so the card and amount count for duplicates.
        let mayStand = Self.mayStandCodes.contains(code)
        guard response != "3" || mayStand else { return reply }
        let id = String(state.nextTransactionID)
        state.nextTransactionID += 1
        state.sequence += 1
        let approved = response == "1"
        let condition = !approved ? "failed" : type == "auth" ? "pending" : type == "validate" ? "complete" : "pendingsettlement"
        let authCode = approved ? String(id.suffix(6)) : ""
        state.transactions[id] = FakeNMITransaction(
            transactionID: id, type: type, orderID: orderID, amount: amount, amountText: amountText,
            currency: fields["currency"] ?? "USD", condition: condition, authCode: authCode, avs: avs, cvv: cvv,
            last4: String(number.suffix(4)), captured: approved && type == "sale" ? amount : 0,
            actions: [.init(type: type, amountText: amountText, success: approved, responseCode: code, responseText: text)],
            sequence: state.sequence,
            storedCredential: fields.filter { Self.storedCredentialFields.contains($0.key) })
        if type != "validate" { state.recentCharges[duplicateKey] = state.now }
        reply.transactionID = id
        reply.authCode = authCode
        return reply
    }

    private func followUp(_ type: String, _ fields: [String: String], _ state: inout FakeNMIState) -> FakeNMIReply {
        guard let id = fields["transactionid"], var original = state.transactions[id] else {
            return .rejected("Transaction not found", type: type)
        }
        let amountText = fields["amount"]
        let amount = amountText.flatMap(Self.units)
        if let amountText, amount == nil || !Self.isDocumentedAmount(amountText) { return .rejected("Invalid amount", type: type) }
        var reply = FakeNMIReply(response: "1", text: "SUCCESS", transactionID: id, orderID: original.orderID, type: type,
                                 code: "100")
        switch type {
        case "capture":
            guard original.type == "auth", original.condition == "pending" else {
                return .rejected("A capture requires that the existing transaction be an AUTH", type: type)
            }
            guard let amount, amount > 0, amount <= original.amount else {
                return .rejected("The specified amount exceeds the authorization amount", type: type)
            }
            original.condition = "pendingsettlement"
            original.captured = amount
            original.actions.append(.init(type: "capture", amountText: amountText ?? "", success: true, responseCode: "100",
                                          responseText: "SUCCESS"))
            reply.authCode = original.authCode
        case "void":
            guard ["pending", "pendingsettlement"].contains(original.condition) else {
                return .rejected("Only transactions pending settlement can be voided", type: type)
            }
            original.condition = "canceled"
            original.actions.append(.init(type: "void", amountText: original.amountText, success: true, responseCode: "100",
                                          responseText: "Transaction Void Successful"))
            reply.text = "Transaction Void Successful"
        default:
            // NMI accepts refunds of transactions still pending settlement, as the review of
            // the real gateway found.
            guard ["complete", "pendingsettlement"].contains(original.condition), original.captured > 0 else {
                return .rejected("Refunds must be for a settled transaction", type: type)
            }
            let refund = amount ?? (original.captured - original.refunded)
            guard refund > 0, refund <= original.captured - original.refunded else {
                return .rejected("Refund amount may not exceed the transaction balance", type: type)
            }
            original.refunded += refund
            let refundID = String(state.nextTransactionID)
            state.nextTransactionID += 1
            state.sequence += 1
            state.transactions[refundID] = FakeNMITransaction(
                transactionID: refundID, type: "refund", orderID: original.orderID, amount: refund,
                amountText: amountText ?? original.amountText, currency: original.currency, condition: "pendingsettlement",
                authCode: "", avs: "", cvv: "", last4: original.last4,
                actions: [.init(type: "refund", amountText: amountText ?? original.amountText, success: true,
                                responseCode: "100", responseText: "SUCCESS")],
                sequence: state.sequence, originalTransactionID: id)
            reply.transactionID = refundID
        }
        state.transactions[id] = original
        return reply
    }

    /// An amount in units of 0.001 from a decimal with at most three fraction digits.
    /// NMI documents amounts as `x.xx`: digits, a point, exactly two digits.
    static func isDocumentedAmount(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && parts[0].allSatisfy(\.isNumber) && parts[1].count == 2 && parts[1].allSatisfy(\.isNumber)
    }

    static let storedCredentialFields: Set<String> = ["initiated_by", "stored_credential_indicator", "billing_method", "initial_transaction_id"]

    /// The Payment API's credential-on-file rules: documented values for `initiated_by`
    /// (customer, merchant), `stored_credential_indicator` (stored, used) and `billing_method`
    /// (recurring, installment); the fake also refuses a merchant-initiated first storage and an
    /// `initial_transaction_id` that is not an approved transaction of the account, or sent with a
    /// customer-initiated charge.
    static func storedCredentialProblem(_ fields: [String: String], _ state: FakeNMIState) -> String? {
        let initiator = fields["initiated_by"]
        let indicator = fields["stored_credential_indicator"]
        if let initiator, !["customer", "merchant"].contains(initiator) { return "Invalid initiated_by" }
        if let indicator, !["stored", "used"].contains(indicator) { return "Invalid stored_credential_indicator" }
        if let method = fields["billing_method"], !["recurring", "installment"].contains(method) { return "Invalid billing_method" }
        if initiator == "merchant", indicator == "stored" { return "A merchant-initiated transaction cannot store a credential" }
        if let initial = fields["initial_transaction_id"] {
            guard initiator == "merchant", indicator == "used" else { return "initial_transaction_id needs initiated_by=merchant" }
            guard let original = state.transactions[initial], original.actions.first?.success == true else {
                return "Invalid initial_transaction_id"
            }
        }
        return nil
    }

    static func units(_ text: String) -> Int? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty, parts[0].allSatisfy(\.isNumber),
              let whole = Int(parts[0]) else { return nil }
        var fraction = 0
        if parts.count == 2 {
            guard (1...3).contains(parts[1].count), parts[1].allSatisfy(\.isNumber) else { return nil }
            fraction = Int(parts[1] + String(repeating: "0", count: 3 - parts[1].count)) ?? 0
        }
        return whole * 1_000 + fraction
    }

    static func luhn(_ digits: String) -> Bool {
        var sum = 0
        for (index, character) in digits.reversed().enumerated() {
            guard var digit = character.wholeNumberValue else { return false }
            if index % 2 == 1 {
                digit *= 2
                if digit > 9 { digit -= 9 }
            }
            sum += digit
        }
        return sum % 10 == 0
    }
}
