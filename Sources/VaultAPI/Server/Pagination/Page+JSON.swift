extension Page: HandWrittenJSON where Item: HandWrittenJSON {
    /// A page of items written by hand is written by hand too: a list of 100 cards through
    /// `JSONEncoder` was half of its server's CPU.
    func writeMembers(_ members: inout JSONMembers) {
        members.objects("data", data) { item, inner in item.writeMembers(&inner) }
        members.string("nextCursor", nextCursor)
    }
}
