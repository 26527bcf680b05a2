import Foundation

/// One transaction the BridgePay fake keeps.
struct FakeBridgePayTransaction: Sendable {
    enum Status: String, Sendable { case open, settled, voided, declined }

    var gatewayTransID: String
    /// `sale`, `sale-auth`, `account-verification`, `refund` or `void`.
    var type: String
    /// The `TransactionID` of the request that created it (BridgePay's `TransactionCode`).
    var transactionCode: String
    var invoice: String
    var cardDigits: String
    var amount: Int
    var responseCode: String
    var gatewayMessage: String
    var authCode: String
    var status: Status
    var captured = 0
    var refunded = 0
    /// What a partial void reversed (BridgePay takes one void per unsettled transaction).
    var voidedAmount = 0
    /// `StoredCredential` as sent (`recurring`), if any.
    var storedCredential: String?
    var sequence: Int

    /// `NetworkReferenceNumber` of an approved charge (the fake's own invention: `N` + its id).
    var networkReference: String {
        ["sale", "sale-auth", "account-verification"].contains(type) && ["00000", "00001"].contains(responseCode)
            ? "N" + gatewayTransID : ""
    }
}

/// The BridgePay fake's mutable state.
struct FakeBridgePayState {
    var nextID = 4_011_311_504
    var sequence = 0
    var transactions: [String: FakeBridgePayTransaction] = [:]
    /// The `InvoiceNum` of each capture, to the transaction it captured (a capture answers with
    /// the authorization's id and creates no transaction of its own).
    var captureInvoices: [String: String] = [:]
    var scripted: [(String, String)] = []
    /// Approved, unvoided charges by type, card and amount (the duplicate rule), counted.
    var active: [String: Int] = [:]
    /// Charges recorded since the ledger was last written (`type`, invoice, id, result code).
    var unwritten: [String] = []

    static func duplicateKey(type: String, card: String, amount: Int) -> String { "\(type)|\(card)|\(amount)" }
}

/// One BridgeComm response document.
struct FakeBridgePayAnswer {
    var kind: String
    var transactionID: String
    var requestType: String
    var responseCode: String
    var description: String
    var message: [(String, String)] = []

    var xml: String {
        func element(_ name: String, _ value: String) -> String { "<\(name)>\(FakeBridgePayXML.escape(value))</\(name)>" }
        var text = "<?xml version=\"1.0\" encoding=\"utf-16\"?><\(kind)>" + element("TransactionID", transactionID)
        text += element("RequestType", requestType) + element("ResponseCode", responseCode)
        text += element("ResponseDescription", description) + "<responseMessage>"
        for (name, value) in message { text += value.isEmpty ? "<\(name) />" : element(name, value) }
        return text + "</responseMessage></\(kind)>"
    }
}

extension FakeBridgePayServer {
    /// Descriptions of the result codes the fake answers (docs "Gateway Result Codes").
    static let descriptions: [String: String] = [
        "00000": "Successful Request", "00001": "Partial Authorization", "10001": "Missing Reference Number",
        "10007": "Invalid Card Number - Not Numeric", "10008": "Invalid Length for card type",
        "10011": "Invalid Transaction ID", "10012": "Invalid Card Number - Failed Mod10",
        "10013": "Invalid Expiration Date Value", "10014": "Invalid Security Code Length",
        "10017": "Invalid Expiration Date - Invalid Month", "10020": "Invalid Client Identifier",
        "10021": "Invalid Request Element - Missing Element", "10022": "Invalid Request Type",
        "10024": "Invalid Credentials", "10027": "Invalid Amount - Blank/Null", "10028": "Invalid Amount - Not Numeric",
        "10029": "Invalid Request Date/Time", "10042": "Already Voided", "10054": "Mandatory Field Error",
        "20002": "Internal Server Error", "30004": "Invalid Request Message", "30020": "Invalid Transaction Industry Type",
        "30021": "Missing Transaction Industry Type", "30022": "Processing Network Unavailable", "30026": "Invalid Amount",
        "30012": "Bad Card Number", "30025": "Invalid Security Code", "30032": "Denied by customer's bank",
        "30033": "Insufficient funds", "30034": "Hold - Pick up card", "30036": "Duplicate Transaction",
        "30037": "Card reported lost", "30072": "Call for Authorization", "80003": "More than one result found for search criteria",
        "80008": "Invalid GatewayTransID", "80009": "Invalid MerchantCode", "800010": "Invalid MerchantAccountCode",
        "800011": "Transaction not found",
    ]

    /// The documented card response triggers: (lowest cents, highest cents, result code, message).
    static let triggers: [(Int, Int, String, String)] = [
        (1, 99, "30032", "D01 - Denied by customer's bank (Do Not Honor)"),
        (101, 498, "30032", "D01 - Denied by customer's bank (Do Not Honor)"),
        (499, 499, "20002", "E09 - Internal Server Error"),
        (7_000, 7_999, "30012", "D05 - Invalid card number"),
        (8_000, 8_999, "30037", "D10 - Card reported lost/stolen"),
        (9_000, 9_999, "30072", "D30 - Call for authorization"),
        (10_000, 10_999, "30034", "D04 - Pick up card"),
        (11_000, 11_999, "30025", "D08 - CSC is invalid"),
        (12_000, 12_999, "30033", "D03 - Insufficient funds"),
        (13_000, 13_999, "30022", "E02 - Processing network unavailable"),
        (15_000, 15_999, "00001", "A05 - Partially Approved"),
        (18_200, 199_999, "30032", "D01 - Denied by customer's bank (Do Not Honor)"),
    ]

    /// Processes one valid SOAP request.
    func process(_ fields: [String: String], _ state: inout FakeBridgePayState) -> FakeBridgePayAnswer {
        let requestType = fields["RequestType"] ?? ""
        let kind = ["004": "Auth", "012": "VoidRefund", "019": "Capture", "023": "FindTransaction"][requestType] ?? "Response"
        var answer = FakeBridgePayAnswer(kind: kind, transactionID: fields["TransactionID"] ?? "", requestType: requestType,
                                         responseCode: "00000", description: "Successful Request")
        func fail(_ code: String) -> FakeBridgePayAnswer {
            answer.responseCode = code
            answer.description = Self.descriptions[code] ?? "Error"
            return answer
        }
        if let failure = Self.headerFailure(fields) { return fail(failure) }
        if requestType != "023", !state.scripted.isEmpty {
            let (code, message) = state.scripted.removeFirst()
            answer.message = [("GatewayResult", code), ("GatewayMessage", message)]
            return fail(code)
        }
        switch requestType {
        case "004": return authorization(fields, answer, &state)
        case "012": return voidRefund(fields, answer, &state)
        case "019": return capture(fields, answer, &state)
        default: return find(fields, answer, state)
        }
    }

    /// The header and merchant checks every request gets, or `nil`.
    static func headerFailure(_ fields: [String: String]) -> String? {
        guard fields["ClientIdentifier"] == "SOAP" else { return "10020" }
        guard let id = fields["TransactionID"], !id.isEmpty else { return "10011" }
        guard ["004", "012", "019", "023"].contains(fields["RequestType"] ?? "") else { return "10022" }
        guard let date = fields["RequestDateTime"], date.utf8.count == 14, date.allSatisfy(\.isASCIIDigit) else { return "10029" }
        let user = fields["User"] ?? "", password = fields["Password"] ?? ""
        guard (5...25).contains(user.count), (7...25).contains(password.count), user == username, password == self.password else {
            return "10024"
        }
        guard let code = fields["MerchantCode"], code.allSatisfy(\.isASCIIDigit), code == merchantCode else { return "80009" }
        guard let account = fields["MerchantAccountCode"], account.allSatisfy(\.isASCIIDigit), account == merchantAccountCode else {
            return "800010"
        }
        return nil
    }

    private func authorization(_ fields: [String: String], _ answer: FakeBridgePayAnswer,
                               _ state: inout FakeBridgePayState) -> FakeBridgePayAnswer {
        var answer = answer
        func fail(_ code: String) -> FakeBridgePayAnswer {
            answer.responseCode = code
            answer.description = Self.descriptions[code] ?? "Error"
            return answer
        }
        let type = fields["TransactionType"] ?? ""
        guard ["sale", "sale-auth", "account-verification"].contains(type) else { return fail(type.isEmpty ? "10021" : "30004") }
        guard let industry = fields["TransIndustryType"] else { return fail("30021") }
        guard ["RE", "DM", "EC", "RS", "LD", "PT"].contains(industry) else { return fail("30020") }
        guard fields["AcctType"] == "R", ["P", "O"].contains(fields["HolderType"] ?? "") else { return fail("30004") }
        guard let invoice = fields["InvoiceNum"] else { return fail("10054") }
        guard (1...12).contains(invoice.count), invoice.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            return fail("30004")
        }
        guard let pan = fields["PaymentAccountNumber"] else { return fail("10021") }
        guard pan.allSatisfy(\.isASCIIDigit) else { return fail("10007") }
        guard (13...16).contains(pan.count) else { return fail("10008") }
        guard Self.luhn(pan) else { return fail("10012") }
        guard let expiry = fields["ExpirationDate"], expiry.count == 4, expiry.allSatisfy(\.isASCIIDigit) else { return fail("10013") }
        guard let month = Int(expiry.prefix(2)), (1...12).contains(month) else { return fail("10017") }
        if let cvv = fields["SecurityCode"], !(3...4).contains(cvv.count) || !cvv.allSatisfy(\.isASCIIDigit) { return fail("10014") }
        var cents = 0
        if type == "account-verification" {
            if let amount = fields["Amount"], amount != "0" { return fail("30026") }
        } else {
            guard let amount = fields["Amount"] else { return fail("10027") }
            guard amount.count <= 12, amount.allSatisfy(\.isASCIIDigit), let value = Int(amount) else { return fail("10028") }
            guard value > 0 else { return fail("30026") }
            cents = value
        }
        if let stored = fields["StoredCredential"], stored != "recurring" { return fail("30004") }
        // BridgePay's duplicate check; the official SDK has no field to override it.
        let duplicateKey = FakeBridgePayState.duplicateKey(type: type, card: pan, amount: cents)
        if state.active[duplicateKey, default: 0] > 0 {
            answer.message = [("GatewayResult", "30036"), ("GatewayMessage", "D09 - Duplicate Transaction")]
            return fail("30036")
        }
        var code = "00000", message = "A01 - Approved"
        if type != "account-verification", let trigger = Self.triggers.first(where: { ($0.0...$0.1).contains(cents) }) {
            (code, message) = (trigger.2, trigger.3)
        }
        if type == "account-verification" { message = "A01 - Approved" }
        let approved = code == "00000" || code == "00001"
        if code == "20002" || code == "30022" {
            answer.message = [("GatewayResult", code), ("GatewayMessage", message)]
            return fail(code)
        }
        state.sequence += 1
        let id = String(state.nextID)
        state.nextID += 100
        let authCode = approved ? String(format: "%06d", (state.sequence * 7_919) % 1_000_000) : ""
        let authorized = code == "00001" ? max(0, cents - 1_000) : (approved ? cents : 0)
        state.transactions[id] = FakeBridgePayTransaction(
            gatewayTransID: id, type: type, transactionCode: fields["TransactionID"] ?? "", invoice: invoice, cardDigits: pan,
            amount: authorized, responseCode: code, gatewayMessage: message, authCode: authCode,
            status: approved ? .open : .declined, storedCredential: fields["StoredCredential"],
            sequence: state.sequence)
        if approved { state.active[duplicateKey, default: 0] += 1 }
        state.unwritten.append([type, invoice, id, code].joined(separator: "\t"))
        let cvvResult = fields["SecurityCode"].map { $0 == "999" || $0 == "111" ? "M" : "N" } ?? ""
        answer.message = [("Token", "11110000000" + String(pan.suffix(4))), ("AuthorizationCode", authCode),
                          ("ReferenceNumber", ""), ("GatewayResult", code), ("AuthorizedAmount", String(authorized)),
                          ("OriginalAmount", String(cents)), ("ExpirationDate", expiry), ("AVSMessage", ""),
                          ("AVSResult", fields["AccountZip"] == "55555" ? "4F" : ""), ("CVMessage", ""),
                          ("CVResult", cvvResult), ("GatewayTransID", id), ("GatewayMessage", message),
                          ("InternalMessage", approved ? "Approved: \(authCode) (approval code)" : "Denied"),
                          ("TransactionCode", fields["TransactionID"] ?? ""), ("IsoCurrencyCode", "USD"),
                          ("MaskedPan", String(repeating: "*", count: pan.count - 4) + pan.suffix(4)),
                          ("NetworkReferenceNumber", approved ? "N" + id : ""),
                          ("ResponseTypeDescription", approved ? (type == "sale-auth" ? "auth" : "sale") : "decline")]
        return fail(code)
    }

    private func capture(_ fields: [String: String], _ answer: FakeBridgePayAnswer,
                         _ state: inout FakeBridgePayState) -> FakeBridgePayAnswer {
        var answer = answer
        func fail(_ code: String) -> FakeBridgePayAnswer {
            answer.responseCode = code
            answer.description = Self.descriptions[code] ?? "Error"
            return answer
        }
        guard fields["TransactionType"] == "capture" else { return fail("30004") }
        guard let reference = fields["ReferenceNumber"], !reference.isEmpty else { return fail("10001") }
        guard var original = state.transactions[reference], original.type == "sale-auth", original.status == .open,
              original.captured == 0 else { return fail("80008") }
        guard let amountText = fields["Amount"], amountText.allSatisfy(\.isASCIIDigit), let amount = Int(amountText) else {
            return fail("10028")
        }
        guard amount > 0, amount <= original.amount else { return fail("30026") }
        original.captured = amount
        state.transactions[reference] = original
        if let invoice = fields["InvoiceNum"], !invoice.isEmpty { state.captureInvoices[invoice] = reference }
        answer.message = [("GatewayResult", "00000"), ("GatewayTransID", reference), ("GatewayMessage", "A01 - Approved"),
                          ("TransactionCode", fields["TransactionID"] ?? "")]
        return answer
    }

    private func voidRefund(_ fields: [String: String], _ answer: FakeBridgePayAnswer,
                            _ state: inout FakeBridgePayState) -> FakeBridgePayAnswer {
        var answer = answer
        func fail(_ code: String) -> FakeBridgePayAnswer {
            answer.responseCode = code
            answer.description = Self.descriptions[code] ?? "Error"
            return answer
        }
        // `refund` is the documented type of both (docs "Refunds & Voids"); the PayGuardian guide's
        // void has no published BridgeComm value, so the fake takes none.
        let type = fields["TransactionType"] ?? ""
        guard type == "refund" else { return fail("30004") }
        guard let reference = fields["ReferenceNumber"], !reference.isEmpty else { return fail("10001") }
        guard var original = state.transactions[reference], ["sale", "sale-auth"].contains(original.type) else { return fail("80008") }
        guard original.status != .voided, original.voidedAmount == 0 else { return fail("10042") }
        guard original.status != .declined else { return fail("80008") }
        let captured = original.type == "sale" ? original.amount : original.captured
        let remaining = (original.type == "sale-auth" && original.captured == 0 ? original.amount : captured) - original.refunded
        guard let text = fields["Amount"], text.allSatisfy(\.isASCIIDigit), let amount = Int(text) else { return fail("10028") }
        guard amount > 0, amount <= remaining else { return fail("30026") }
        let message: String
        let voids = original.status == .open
        if voids, amount == remaining {
            // Unsettled: BridgePay voids (a refund of an unsettled transaction is a void; one only).
            original.status = .voided
            state.active[FakeBridgePayState.duplicateKey(type: original.type, card: original.cardDigits,
                                                         amount: original.amount), default: 0] -= 1
            message = "A03 - Void Posted (Auth Reversed)"
        } else if voids {
            // A partial reversal: the rest stays charged; no second void of this transaction.
            original.voidedAmount = amount
            original.refunded += amount
            message = "A07 - Partial Void Posted"
        } else {
            original.refunded += amount
            message = amount == remaining ? "A02 - Credit Posted" : "A08 - Partial Refund Posted"
        }
        state.transactions[reference] = original
        state.sequence += 1
        let id = String(state.nextID)
        state.nextID += 100
        state.transactions[id] = FakeBridgePayTransaction(
            gatewayTransID: id, type: voids ? "void" : "refund", transactionCode: fields["TransactionID"] ?? "",
            invoice: fields["InvoiceNum"] ?? "",
            cardDigits: original.cardDigits, amount: amount, responseCode: "00000", gatewayMessage: message, authCode: "",
            status: .settled, sequence: state.sequence)
        answer.message = [("ReferenceNumber", ""), ("GatewayTransID", id), ("GatewayMessage", message), ("GatewayResult", "00000"),
                          ("TransactionCode", fields["TransactionID"] ?? ""),
                          ("RemainingAmount", String(remaining - amount)), ("ResponseType", type)]
        return answer
    }

    private func find(_ fields: [String: String], _ answer: FakeBridgePayAnswer, _ state: FakeBridgePayState) -> FakeBridgePayAnswer {
        var answer = answer
        func fail(_ code: String) -> FakeBridgePayAnswer {
            answer.responseCode = code
            answer.description = Self.descriptions[code] ?? "Error"
            return answer
        }
        // The PayGuardian guide's find request takes a gateway transaction id or an invoice number.
        var matches: [FakeBridgePayTransaction]
        if let id = fields["GatewayTransID"], !id.isEmpty {
            matches = state.transactions[id].map { [$0] } ?? []
        } else if let invoice = fields["InvoiceNum"], !invoice.isEmpty {
            matches = state.transactions.values.filter { $0.invoice == invoice }
            if let captured = state.captureInvoices[invoice], let original = state.transactions[captured] { matches.append(original) }
        } else {
            return fail("10021")
        }
        guard !matches.isEmpty else { return fail("800011") }
        guard matches.count == 1, let found = matches.first else { return fail("80003") }
        answer.message = [("GatewayTransID", found.gatewayTransID), ("GatewayResult", found.responseCode),
                          ("GatewayMessage", found.gatewayMessage), ("AuthorizationCode", found.authCode),
                          ("InvoiceNum", found.invoice),
                          ("NetworkReferenceNumber", found.networkReference), ("TransactionType", found.type), ("Amount", String(found.amount)),
                          ("TransactionStatus", found.status.rawValue)]
        return answer
    }

    static func luhn(_ digits: String) -> Bool {
        var sum = 0
        for (index, character) in digits.reversed().enumerated() {
            guard var value = character.wholeNumberValue else { return false }
            if index % 2 == 1 { value *= 2; if value > 9 { value -= 9 } }
            sum += value
        }
        return sum % 10 == 0
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
