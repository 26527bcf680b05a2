#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The parts of Authorize.Net JSON replies the adapter reads. Every field is optional and
/// numbers-or-strings are accepted, because the JSON is generated from XML.
enum AuthorizeNetResponses {
    struct Message: Decodable, Sendable {
        var code: String?
        var text: String?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyKey.self)
            code = container.lenientString("code")
            text = container.lenientString("text") ?? container.lenientString("description")
        }
    }

    struct Messages: Decodable, Sendable {
        var resultCode: String?
        var message: [Message]

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyKey.self)
            resultCode = container.lenientString("resultCode")
            message = container.lenientArray("message")
        }
    }

    struct TransactionError: Decodable, Sendable {
        var errorCode: String?
        var errorText: String?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyKey.self)
            errorCode = container.lenientString("errorCode")
            errorText = container.lenientString("errorText")
        }
    }

    struct TransactionResponse: Decodable, Sendable {
        var responseCode: String?
        var authCode: String?
        var avsResultCode: String?
        var cvvResultCode: String?
        var transId: String?
        /// The card network's id of this transaction, for later merchant-initiated charges.
        var networkTransId: String?
        var messages: [Message]
        var errors: [TransactionError]

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyKey.self)
            responseCode = container.lenientString("responseCode")
            authCode = container.lenientString("authCode")
            avsResultCode = container.lenientString("avsResultCode")
            cvvResultCode = container.lenientString("cvvResultCode")
            transId = container.lenientString("transId")
            networkTransId = container.lenientString("networkTransId")
            messages = container.lenientArray("messages", element: "message")
            errors = container.lenientArray("errors", element: "error")
        }

        /// The response reason code: the first error's code, else the first message's.
        var reasonCode: String? { errors.first?.errorCode ?? messages.first?.code }
        /// The matching reason text.
        var reasonText: String? { errors.first?.errorText ?? messages.first?.text }
    }

    struct CreateTransaction: Decodable, Sendable {
        var transactionResponse: TransactionResponse?
        var refId: String?
        var messages: Messages?
    }

    struct TransactionSummary: Decodable, Sendable {
        var transId: String?
        var transactionStatus: String?
        var invoiceNumber: String?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyKey.self)
            transId = container.lenientString("transId")
            transactionStatus = container.lenientString("transactionStatus")
            invoiceNumber = container.lenientString("invoiceNumber")
        }
    }

    struct TransactionList: Decodable, Sendable {
        var transactions: [TransactionSummary]
        var totalNumInResultSet: Int?
        var messages: Messages?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyKey.self)
            transactions = container.lenientArray("transactions", element: "transaction")
            totalNumInResultSet = container.lenientString("totalNumInResultSet").flatMap { Int($0) }
            messages = try container.decodeIfPresent(Messages.self, forKey: AnyKey("messages"))
        }
    }

    struct TransactionDetails: Decodable, Sendable {
        var transId: String?
        var transactionType: String?
        var transactionStatus: String?
        var responseCode: String?
        var responseReasonCode: String?
        var responseReasonDescription: String?
        var authCode: String?
        var avsResponse: String?
        var cardCodeResponse: String?
        var invoiceNumber: String?
        /// The masked card number, `XXXX1111`.
        var cardNumber: String?
        /// The amount settled (captured), `12.34`.
        var settleAmount: String?
        /// The card network's id of this transaction (XSD `transactionDetailsType.networkTransId`).
        var networkTransId: String?
        /// For a refund: the transaction refunded.
        var refTransId: String?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyKey.self)
            transId = container.lenientString("transId")
            transactionType = container.lenientString("transactionType")
            transactionStatus = container.lenientString("transactionStatus")
            responseCode = container.lenientString("responseCode")
            responseReasonCode = container.lenientString("responseReasonCode")
            responseReasonDescription = container.lenientString("responseReasonDescription")
            authCode = container.lenientString("authCode")
            avsResponse = container.lenientString("AVSResponse")
            cardCodeResponse = container.lenientString("cardCodeResponse")
            let order = try? container.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("order"))
            invoiceNumber = order?.lenientString("invoiceNumber")
            let payment = try? container.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("payment"))
            let card = try? payment?.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("creditCard"))
            cardNumber = card?.lenientString("cardNumber")
            settleAmount = container.lenientString("settleAmount")
            networkTransId = container.lenientString("networkTransId")
            refTransId = container.lenientString("refTransId")
        }
    }

    struct TransactionDetailsReply: Decodable, Sendable {
        var transaction: TransactionDetails?
        var messages: Messages?
    }

    /// Decodes a reply body after dropping a UTF-8 byte-order mark (Authorize.Net sends one).
    static func decode<T: Decodable>(_ type: T.Type, from body: [UInt8]) -> T? {
        var bytes = body[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        return try? JSONDecoder().decode(T.self, from: Data(bytes))
    }
}

/// A coding key for any member name.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension KeyedDecodingContainer where Key == AnyKey {
    /// A member as a string whether it was sent as a string, a number or a boolean; empty is `nil`.
    func lenientString(_ key: String) -> String? {
        let key = AnyKey(key)
        let value: String? = if let text = try? decodeIfPresent(String.self, forKey: key) {
            text
        } else if let number = try? decodeIfPresent(Int64.self, forKey: key) {
            String(number)
        } else if let number = try? decodeIfPresent(Double.self, forKey: key) {
            String(number)
        } else if let flag = try? decodeIfPresent(Bool.self, forKey: key) {
            String(flag)
        } else {
            nil
        }
        return value?.isEmpty == false ? value : nil
    }

    /// A list member sent as an array, a single object, or wrapped in `{element: [...]}`
    /// (XML-to-JSON conversions produce all three); unreadable elements are skipped.
    func lenientArray<T: Decodable>(_ key: String, element: String? = nil) -> [T] {
        let key = AnyKey(key)
        if let array = try? decodeIfPresent([Lenient<T>].self, forKey: key) {
            return array.compactMap(\.value)
        }
        if let element, let wrapper = try? nestedContainer(keyedBy: AnyKey.self, forKey: key) {
            return wrapper.lenientArray(element)
        }
        if let single = try? decodeIfPresent(T.self, forKey: key) {
            return [single]
        }
        return []
    }
}

/// Decodes a value or `nil` without failing the enclosing array.
struct Lenient<T: Decodable>: Decodable {
    var value: T?

    init(from decoder: any Decoder) throws {
        value = try? T(from: decoder)
    }
}
