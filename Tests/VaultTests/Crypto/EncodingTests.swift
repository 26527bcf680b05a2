import PropertyBased
import Testing
@testable import Vault

@Suite struct EncodingTests {
    /// RFC 4648 §10 test vectors: (input, base64, base32 lowercased without padding, hex).
    static let rfc4648: [(String, String, String, String)] = [
        ("", "", "", ""),
        ("f", "Zg==", "my", "66"),
        ("fo", "Zm8=", "mzxq", "666f"),
        ("foo", "Zm9v", "mzxw6", "666f6f"),
        ("foob", "Zm9vYg==", "mzxw6yq", "666f6f62"),
        ("fooba", "Zm9vYmE=", "mzxw6ytb", "666f6f6261"),
        ("foobar", "Zm9vYmFy", "mzxw6ytboi", "666f6f626172"),
    ]

    @Test(arguments: rfc4648)
    func matchesRFC4648Vectors(input: String, base64: String, base32: String, hex: String) throws {
        let bytes = Array(input.utf8)
        #expect(Encoding.base64(bytes) == base64)
        #expect(try Encoding.fromBase64(base64) == bytes)
        #expect(Encoding.base32(bytes) == base32)
        #expect(try Encoding.fromBase32(base32) == bytes)
        #expect(try Encoding.fromBase32(base32.uppercased()) == bytes)
        #expect(Encoding.hex(bytes) == hex)
        #expect(try Encoding.fromHex(hex) == bytes)
        #expect(try Encoding.secureFromBase64(base64).copyToArray() == bytes)
    }

    @Test func hexIsLowercaseAndDecodesEitherCase() throws {
        #expect(Encoding.hex([0xAB, 0xCD, 0xEF, 0x01]) == "abcdef01")
        #expect(try Encoding.fromHex("ABcdEF01") == [0xAB, 0xCD, 0xEF, 0x01])
    }

    @Test func base64OfSecureBytesMatchesPlainBase64() throws {
        let key = try CryptoFixtures.key()
        #expect(Encoding.base64(key) == Encoding.base64(key.copyToArray()))
    }

    @Test(arguments: ["Zg=", "Zg", "Zh==", "Zm9v YmFy", "Zm9v\n", "Zm9v!", "====", "Zm9vYmFy=", "-_-_"])
    func malformedBase64IsRefusedWithoutEchoingTheInput(text: String) {
        #expect(throws: CryptoError.invalidEncoding("base64")) { try Encoding.fromBase64(text) }
        #expect(throws: CryptoError.invalidEncoding("base64")) { try Encoding.secureFromBase64(text) }
    }

    @Test(arguments: ["a", "abc", "abcdef", "my======", "m1", "mz", "my!x", "0123abcd"])
    func malformedBase32IsRefused(text: String) {
        #expect(throws: CryptoError.invalidEncoding("base32")) { try Encoding.fromBase32(text) }
    }

    @Test(arguments: ["0", "abc", "zz", "0x12", "12 34"])
    func malformedHexIsRefused(text: String) {
        #expect(throws: CryptoError.invalidEncoding("hex")) { try Encoding.fromHex(text) }
    }

    @Test func roundTripsHoldForArbitraryBytes() async {
        await propertyCheck(input: Gen.uint8().array(of: 0...80)) { bytes throws in
            #expect(try Encoding.fromBase64(Encoding.base64(bytes)) == bytes)
            #expect(try Encoding.secureFromBase64(Encoding.base64(bytes)).copyToArray() == bytes)
            #expect(try Encoding.fromBase32(Encoding.base32(bytes)) == bytes)
            #expect(try Encoding.fromHex(Encoding.hex(bytes)) == bytes)
            #expect(Encoding.base32(bytes).utf8.count == (bytes.count * 8 + 4) / 5)
        }
    }
}
