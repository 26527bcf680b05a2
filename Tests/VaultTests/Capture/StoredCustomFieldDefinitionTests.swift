import Testing
@testable import Vault

/// A merchant's custom field definitions are stored by field names of their own, pinned here, not
/// by the API type's coding keys; a stored value that is not that form is an error naming the row.
@Suite struct StoredCustomFieldDefinitionTests {
    @Test func definitionsAreStoredByTheirOwnFieldNames() throws {
        let definitions = [
            CustomFieldDefinition(name: "ReferenceID", required: true, maxLength: 10),
            CustomFieldDefinition(name: "loyalty.tier_2-x", required: false, maxLength: 1024),
        ]
        let text = try CustomFieldDefinition.storedText(definitions)
        #expect(text == #"[{"maxLength":10,"name":"ReferenceID","required":true},{"maxLength":1024,"name":"loyalty.tier_2-x","required":false}]"#)
        #expect(try CustomFieldDefinition.fromStoredText(text, merchantID: "mer_1") == definitions)
        #expect(try CustomFieldDefinition.fromStoredText("[]", merchantID: "mer_1") == [])
    }

    @Test func storedDefinitionsThatDoNotReadAreAnErrorNamingTheMerchantsRow() {
        #expect(throws: StoredRowError.unreadable(table: "custom_field_definitions", id: "mer_1", column: "definitions", value: nil)) {
            try CustomFieldDefinition.fromStoredText(#"[{"name":"ReferenceID","mandatory":true}]"#, merchantID: "mer_1")
        }
    }
}
