import Testing
@testable import Vault

@Suite struct CustomFieldTests {
    static let definitions = [
        CustomFieldDefinition(name: "ReferenceID", required: true, maxLength: 10),
        CustomFieldDefinition(name: "InvoiceNumber", required: false, maxLength: 5),
        CustomFieldDefinition(name: "loyalty.tier_2-x", required: false, maxLength: 1024),
    ]

    @Test("definitions: valid set passes")
    func validDefinitions() throws {
        try CustomFieldDefinition.validateDefinitions(Self.definitions)
        try CustomFieldDefinition.validateDefinitions([])
        try CustomFieldDefinition.validateDefinitions([CustomFieldDefinition(name: String(repeating: "a", count: 64), maxLength: 1)])
    }

    @Test("definitions: bad names, duplicates and maxLength out of range", arguments: [
        ([CustomFieldDefinition(name: "", maxLength: 5)], "fields[0].name", "missing"),
        ([CustomFieldDefinition(name: "has space", maxLength: 5)], "fields[0].name", "invalid_format"),
        ([CustomFieldDefinition(name: "a:b", maxLength: 5)], "fields[0].name", "invalid_format"),
        ([CustomFieldDefinition(name: "naïve", maxLength: 5)], "fields[0].name", "invalid_format"),
        ([CustomFieldDefinition(name: String(repeating: "a", count: 65), maxLength: 5)], "fields[0].name", "too_long"),
        ([CustomFieldDefinition(name: "A", maxLength: 5), CustomFieldDefinition(name: "A", maxLength: 6)], "fields[1].name", "duplicate"),
        ([CustomFieldDefinition(name: "A", maxLength: 0)], "fields[0].maxLength", "out_of_range"),
        ([CustomFieldDefinition(name: "A", maxLength: 1025)], "fields[0].maxLength", "out_of_range"),
        ([CustomFieldDefinition(name: "A", maxLength: -1)], "fields[0].maxLength", "out_of_range"),
        ((0...100).map { CustomFieldDefinition(name: "f\($0)", maxLength: 1) }, "fields", "too_many"),
    ])
    func badDefinitions(definitions: [CustomFieldDefinition], field: String, code: String) {
        expectCardDataError(field: field, code: code) { () throws(CardDataError) in
            try CustomFieldDefinition.validateDefinitions(definitions)
        }
    }

    @Test("fields that match the definitions pass")
    func validFields() throws {
        try CustomFieldValidation.validate([
            CustomField(name: "ReferenceID", value: "R-17"),
            CustomField(name: "InvoiceNumber", value: "12345"),
        ], against: Self.definitions)
        try CustomFieldValidation.validate([CustomField(name: "ReferenceID", value: "éééééééééé")], against: Self.definitions)
        try CustomFieldValidation.validate([], against: [])
    }

    @Test("unknown name, duplicate, too long, missing required, control characters", arguments: [
        ([CustomField(name: "ReferenceID", value: "1"), CustomField(name: "Colour", value: "red")],
         "customFields[1].name", "unknown_field"),
        ([CustomField(name: "referenceid", value: "1")], "customFields[0].name", "unknown_field"),
        ([CustomField(name: "ReferenceID", value: "1"), CustomField(name: "ReferenceID", value: "2")],
         "customFields[1].name", "duplicate"),
        ([CustomField(name: "ReferenceID", value: "1"), CustomField(name: "InvoiceNumber", value: "123456")],
         "customFields[1].value", "too_long"),
        ([CustomField(name: "InvoiceNumber", value: "1")], "customFields", "required"),
        ([], "customFields", "required"),
        ([CustomField(name: "ReferenceID", value: "")], "customFields", "required"),
        ([CustomField(name: "ReferenceID", value: "a\u{0}b")], "customFields[0].value", "invalid_format"),
    ])
    func badFields(fields: [CustomField], field: String, code: String) {
        expectCardDataError(field: field, code: code) { () throws(CardDataError) in
            try CustomFieldValidation.validate(fields, against: Self.definitions)
        }
    }

    @Test("errors name the field in the message")
    func messagesNameTheField() {
        let missing = expectCardDataError(field: "customFields", code: "required") { () throws(CardDataError) in
            try CustomFieldValidation.validate([], against: Self.definitions)
        }
        #expect(missing?.message.contains("ReferenceID") == true)
        let unknown = expectCardDataError(field: "customFields[0].name", code: "unknown_field") { () throws(CardDataError) in
            try CustomFieldValidation.validate([CustomField(name: "Colour", value: "x")], against: Self.definitions)
        }
        #expect(unknown?.message.contains("Colour") == true)
        let tooLong = expectCardDataError(field: "customFields[1].value", code: "too_long") { () throws(CardDataError) in
            try CustomFieldValidation.validate([CustomField(name: "ReferenceID", value: "1"),
                                                CustomField(name: "InvoiceNumber", value: "123456")], against: Self.definitions)
        }
        #expect(tooLong?.message.contains("InvoiceNumber") == true)
    }

    @Test("an unknown field name that looks like card data is not quoted", arguments: [
        Labeled("digits", "4111111111111111"), Labeled("dashes", "4111-1111-1111-1111"),
        Labeled("spaces", "4111 1111 1111 1111"), Labeled("word and digits", "card4111111111111111"),
    ])
    func unknownCardLikeNamesNotQuoted(name: Labeled) {
        let error = expectCardDataError(field: "customFields[0].name", code: "unknown_field") { () throws(CardDataError) in
            try CustomFieldValidation.validate([CustomField(name: name.value, value: "x")], against: Self.definitions)
        }
        expectNoSecrets(in: error, [name.value, "4111111111111111"])
    }
}
