import Foundation
import Testing
@testable import Vault

@Suite struct MerchantReferenceTests {
    @Test("valid references, punctuation included", arguments: [
        "MR01", "a", "order-2024.11_07:42", "A.B_C:D-E", String(repeating: "z", count: 64), "...", "---",
    ])
    func valid(reference: String) throws {
        let value = try MerchantReference(validating: reference)
        #expect(value.value == reference)
        #expect(value.description == reference)
    }

    @Test("invalid references", arguments: [
        ("", "missing"), ("has space", "invalid_format"), (" lead", "invalid_format"), ("trail ", "invalid_format"),
        (String(repeating: "z", count: 65), "too_long"), ("a/b", "invalid_format"), ("a+b", "invalid_format"),
        ("ümlaut", "invalid_format"), ("tab\t", "invalid_format"), ("a\u{0}", "invalid_format"), ("#1", "invalid_format"),
    ])
    func invalid(reference: String, code: String) {
        expectCardDataError(field: "merchantReference", code: code) { () throws(CardDataError) in
            try MerchantReference(validating: reference)
        }
    }

    @Test("JSON is a plain string, and decoding validates")
    func codable() throws {
        let reference = try MerchantReference(validating: "MR-01")
        let data = try JSONEncoder().encode(reference)
        #expect(String(decoding: data, as: UTF8.self) == #""MR-01""#)
        #expect(try JSONDecoder().decode(MerchantReference.self, from: data) == reference)
        #expect(throws: CardDataError.self) {
            try JSONDecoder().decode(MerchantReference.self, from: Data(#""bad ref""#.utf8))
        }
    }
}
