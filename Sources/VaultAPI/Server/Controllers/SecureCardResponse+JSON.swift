import Vault

extension SecureCardResponse: HandWrittenJSON {
    /// The same members as `encode(to:)`, in sorted key order.
    func writeMembers(_ members: inout JSONMembers) {
        members.string("bin", bin)
        members.stringsIfPresent("cancelledSchedules", cancelledSchedules)
        members.string("cardType", cardType)
        members.instant("createdAt", createdAt)
        members.objects("customFields", customFields) { field, members in
            members.string("name", field.name)
            members.string("value", field.value)
        }
        members.object("customer", customer) { customer, members in
            members.stringIfPresent("city", customer.city)
            members.stringIfPresent("country", customer.country)
            members.stringIfPresent("email", customer.email)
            members.stringIfPresent("ipAddress", customer.ipAddress)
            members.stringIfPresent("mobileNumber", customer.mobileNumber)
            members.stringIfPresent("region", customer.region)
        }
        members.instant("deletedAt", deletedAt)
        members.stringIfPresent("deletedReference", deletedReference)
        members.stringIfPresent("description", description)
        members.string("entryMode", entryMode)
        members.string("expiryDate", expiryDate)
        members.string("fingerprint", fingerprint)
        members.string("holderName", holderName)
        members.int("keyVersion", keyVersion)
        members.string("last4", last4)
        members.string("maskedNumber", maskedNumber)
        members.string("merchantReference", merchantReference)
        members.instant("purgedAt", purgedAt)
        members.string("secureCardReference", secureCardReference)
        members.string("status", status)
        members.instant("updatedAt", updatedAt)
        members.object("verification", verification) { verification, members in
            members.stringIfPresent("avsResult", verification.avsResult)
            members.stringIfPresent("cvvResult", verification.cvvResult)
            members.string("gateway", verification.gateway)
            members.string("status", verification.status)
            members.stringIfPresent("transactionId", verification.transactionId)
            members.instant("verifiedAt", verification.verifiedAt)
        }
    }
}
