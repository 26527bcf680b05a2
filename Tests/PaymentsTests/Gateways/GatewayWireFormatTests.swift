@testable import GatewayFakes
import NIOCore
@testable import Payments
import PropertyBased
import Testing
import Vault

/// The small wire-format helpers the adapters are built on.
@Suite struct GatewayWireFormatTests {
    typealias F = GatewayFixtures

    @Test(arguments: [(Int64(1_000), "JPY", "1000"), (Int64(5), "JPY", "5"), (Int64(1_234), "USD", "12.34"),
                      (Int64(7), "USD", "0.07"), (Int64(0), "EUR", "0.00"), (Int64(1_250), "KWD", "1.250"),
                      (Int64(1), "BHD", "0.001"), (Int64(123_456_789), "VND", "123456789")])
    func amountsUseTheCurrencyExponentWithoutFloatingPoint(_ minorUnits: Int64, _ currency: String, _ wire: String) {
        #expect(F.money(minorUnits, currency).gatewayDecimal == wire)
    }

    @Test func negativeAmountsHaveNoGatewayForm() {
        #expect(F.money(-100).gatewayDecimal == nil)
    }

    @Test func orderedJSONKeepsMemberOrderAndEscapes() {
        var object = OrderedJSONObject()
        object.add("z", .string("quote\" backslash\\ newline\n tab\t bell\u{07}"))
        object.add("a", .number("10.00"))
        object.add("skipped", string: nil)
        object.add("empty", object: OrderedJSONObject())
        object.add("list", .array([.bool(true), .null]))
        #expect(object.json.text == #"{"z":"quote\" backslash\\ newline\n tab\t bell\u0007","a":10.00,"list":[true,null]}"#)
    }

    @Test func formEncodingEscapesReservedCharacters() {
        let encoded = FormEncoding.encode([("order description", "Plan #1 & more=yes"), ("key", "a+b/c")])
        #expect(encoded == "order+description=Plan+%231+%26+more%3Dyes&key=a%2Bb%2Fc")
    }

    @Test func formEncodingRoundTrips() async {
        let wide = Gen<Character>.character(in: " "..."\u{2FF}")
        await propertyCheck(input: Gen.ascii.string(of: 0...20), wide.string(of: 0...20)) { key, value in
            let decoded = FormEncoding.decode(FormEncoding.encode([(key, value), ("second", "2")]))
            #expect(decoded.count == 2)
            #expect(decoded.first?.0 == key)
            #expect(decoded.first?.1 == value)
        }
    }

    @Test func miniXMLReadsNMIQueryReplies() throws {
        let xml = """
            \u{FEFF}<?xml version="1.0" encoding="UTF-8"?>
            <!-- a comment -->
            <nm_response>
              <transaction id="1">
                <transaction_id>123</transaction_id>
                <order_description>Tom &amp; Jerry &lt;3 &#65;&#x42;</order_description>
                <empty/>
                <note><![CDATA[<raw> & unescaped]]></note>
              </transaction>
            </nm_response>
            """
        let root = try #require(MiniXML.parse(Array(xml.utf8)))
        let transaction = try #require(root.child("transaction"))
        #expect(transaction.value("transaction_id") == "123")
        #expect(transaction.value("order_description") == "Tom & Jerry <3 AB")
        #expect(transaction.value("note") == "<raw> & unescaped")
        #expect(transaction.child("empty") != nil)
        #expect(transaction.value("empty") == nil)
    }

    @Test(arguments: ["<a><b></a></b>", "<a>", "text only", "<a></a><b></b>", "<a attr=\"unterminated></a>", ""])
    func miniXMLRejectsMalformedDocuments(_ text: String) {
        #expect(MiniXML.parse(Array(text.utf8)) == nil)
    }

    @Test func miniXMLNeverCrashesOnArbitraryBytes() async {
        let pieces = Gen<Character?>.element(of: Array("<>/!?[]&;=\"' abc-") as [Character]).map { $0 ?? "a" }
        await propertyCheck(input: pieces.string(of: 0...60)) { text in
            _ = MiniXML.parse(Array(text.utf8))
        }
    }

    @Test func nmiQueryReplyWithAnErrorIsUnavailableAndAnEmptyOneIsNotFound() {
        let error = "<nm_response><error_response>Invalid Security Key REFID:1</error_response></nm_response>"
        #expect(NMIGateway.lookupResult(xml: Array(error.utf8), reference: "R", transactionID: nil) == .unavailable("query_error"))
        let empty = "<?xml version=\"1.0\"?>\n<nm_response>\n</nm_response>"
        #expect(NMIGateway.lookupResult(xml: Array(empty.utf8), reference: "R", transactionID: nil) == .notFound)
    }

    @Test(arguments: [
        #"{"transactions":[{"transId":"1","invoiceNumber":"A"},{"transId":2,"invoiceNumber":"B"}],"messages":{"resultCode":"Ok","message":[]}}"#,
        #"{"transactions":{"transaction":[{"transId":"1","invoiceNumber":"A"},{"transId":"2","invoiceNumber":"B"}]},"messages":{"resultCode":"Ok","message":{"code":"I00001","text":"ok"}}}"#,
    ])
    func authorizeNetListsAreReadWhateverShapeTheXMLConversionGaveThem(_ json: String) throws {
        let list = try #require(AuthorizeNetResponses.decode(AuthorizeNetResponses.TransactionList.self,
                                                              from: [0xEF, 0xBB, 0xBF] + Array(json.utf8)))
        #expect(list.transactions.map(\.transId) == ["1", "2"])
        #expect(list.transactions.map(\.invoiceNumber) == ["A", "B"])
    }

    @Test(arguments: [(Duration.seconds(30), Int64(30_000_000_000)), (.milliseconds(1), 1_000_000), (.zero, 0),
                      (.seconds(Int64.max), Int64.max)])
    func timeoutsConvertToNanoseconds(_ duration: Duration, _ nanoseconds: Int64) {
        #expect(GatewayHTTP.timeAmount(duration).nanoseconds == nanoseconds)
    }

    @Test func refIDsFitAuthorizeNetsTwentyCharacters() {
        #expect(AuthorizeNetRequests.refID(forIdempotencyKey: "short-key") == "short-key")
        let long = AuthorizeNetRequests.refID(forIdempotencyKey: String(repeating: "x", count: 80))
        #expect(long.count == 16)
        #expect(long == AuthorizeNetRequests.refID(forIdempotencyKey: String(repeating: "x", count: 80)))
        #expect(StableHash.hex("") == "cbf29ce484222325")
    }

    @Test func urlsAreRedactedForPrinting() {
        #expect(GatewayURL.redacted("https://user:secret@host.test:8443/api/x?key=secret#frag") == "https://host.test:8443/api/x")
        #expect(GatewayURL.withDefaultPath("http://127.0.0.1:9000/", "/xml/v1/request.api")
            == "http://127.0.0.1:9000/xml/v1/request.api")
        #expect(GatewayURL.withDefaultPath("http://host/custom", "/xml/v1/request.api") == "http://host/custom")
    }
}
