import Vault

extension ScheduleResponse: HandWrittenJSON {
    /// The same members as the synthesized `encode(to:)` (absent optionals left out), in sorted key order.
    func writeMembers(_ members: inout JSONMembers) {
        members.int("amount", amount)
        members.instantIfPresent("confirmedAt", confirmedAt)
        members.instant("createdAt", createdAt)
        members.string("currency", currency)
        members.stringsIfPresent("dates", dates)
        members.intIfPresent("day", day)
        members.stringIfPresent("description", description)
        members.intIfPresent("endCount", endCount)
        members.stringIfPresent("endDate", endDate)
        members.stringIfPresent("endType", endType)
        members.instantIfPresent("expiresAt", expiresAt)
        members.stringIfPresent("externalId", externalId)
        members.intIfPresent("hour", hour)
        members.string("id", id)
        members.stringIfPresent("materializedThrough", materializedThrough)
        members.intIfPresent("minute", minute)
        members.intIfPresent("month", month)
        members.stringIfPresent("receiptEmail", receiptEmail)
        members.stringIfPresent("receiptPhone", receiptPhone)
        members.string("secureCardReference", secureCardReference)
        members.stringIfPresent("startDate", startDate)
        members.string("status", status)
        members.objectsIfPresent("steps", steps) { step, members in step.writeMembers(&members) }
        members.stringIfPresent("timeZone", timeZone)
        members.stringIfPresent("type", type)
        members.instant("updatedAt", updatedAt)
        members.strings("warnings", warnings)
    }
}

extension StepResponse: HandWrittenJSON {
    /// The same members as the synthesized `encode(to:)`, in sorted key order.
    func writeMembers(_ members: inout JSONMembers) {
        members.int("amount", amount)
        members.int("attempts", attempts)
        members.string("currency", currency)
        members.string("date", date)
        members.instant("dueAt", dueAt)
        members.stringIfPresent("id", id)
        members.int("sequence", sequence)
        members.string("status", status)
    }
}
