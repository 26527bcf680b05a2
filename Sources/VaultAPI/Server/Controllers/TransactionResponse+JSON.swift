extension TransactionResponse: HandWrittenJSON {
    /// The same members as `encode(to:)` (every optional written, `null` when absent), in sorted
    /// key order: a sale's answer and every transaction of a list page.
    func writeMembers(_ members: inout JSONMembers) {
        members.int("amount", amount)
        members.intOrNull("attempt", attempt)
        members.int("capturedAmount", capturedAmount)
        members.string("cardType", cardType)
        members.instant("createdAt", createdAt)
        members.string("currency", currency)
        members.object("decline", decline) { decline, members in
            members.string("category", decline.category)
            members.string("code", decline.code)
        }
        members.string("description", description)
        members.string("errorCode", errorCode)
        members.object("gateway", gateway) { gateway, members in
            members.string("authCode", gateway.authCode)
            members.string("avsResult", gateway.avsResult)
            members.string("cvvResult", gateway.cvvResult)
            members.string("name", gateway.name)
            members.string("responseCode", gateway.responseCode)
            members.string("responseText", gateway.responseText)
            members.string("transactionId", gateway.transactionId)
        }
        members.string("id", id)
        members.string("maskedNumber", maskedNumber)
        members.string("merchantReference", merchantReference)
        members.string("parentId", parentId)
        members.int("refundableAmount", refundableAmount)
        members.int("refundedAmount", refundedAmount)
        members.string("reverseMode", reverseMode)
        members.string("scheduleId", scheduleId)
        members.string("secureCardReference", secureCardReference)
        members.int("state", state)
        members.string("status", status)
        members.string("stepId", stepId)
        members.object("storedCredential", storedCredential) { credential, members in
            members.string("initiatedBy", credential.initiatedBy)
            members.string("networkTransactionId", credential.networkTransactionId)
            members.string("type", credential.type)
        }
        members.int("subState", subState)
        members.string("type", type)
        members.instant("updatedAt", updatedAt)
        members.instant("voidableUntil", voidableUntil)
        members.int("voidedAmount", voidedAmount)
    }
}
