public import Foundation
public import Hummingbird
import NIOCore
import Vault

/// Decoding request bodies and encoding responses the same way on every route.
public enum JSONCoding {
    /// The encoder of every response: sorted keys, ISO 8601 instants.
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.string(date))
        }
        return encoder
    }()

    /// Decodes the (already collected) body as `type`.
    ///
    /// The bytes are parsed once into a ``JSONValue`` (``JSONBodyParser``), checked against the
    /// operation's OpenAPI schema on that tree, and decoded from it (``JSONValueDecoder``).
    /// Not JSON or not UTF-8 is a 400, and so is an object that gives a key twice (`duplicate_key`,
    /// at any depth: `{"amount":100,"amount":999999}` is ambiguous and refused before anything is
    /// decoded), a body nested deeper than ``TextPolicy/maximumDepth`` (`too_deep`) and a field the
    /// operation's OpenAPI schema does not declare (`unknown_parameter` naming it, e.g. `card.numbr`;
    /// see `OpenAPIContract`); a string that breaks ``TextPolicy`` (a control character, longer than
    /// the document allows) and a missing field or a wrong type are a 422 naming the field.
    public static func decode<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        var request = request
        let buffer = try await request.collectBody(upTo: .max)
        let operation = OpenAPIContract.served.operation(method: request.method.rawValue, path: request.uri.path)
        return try buffer.withUnsafeReadableBytes { try decode(T.self, body: $0, operation: operation) }
    }

    /// Decodes `body` as `type` for the documented operation at `method` and `path`, answering every
    /// refusal as ``decode(_:from:)`` does (for fuzzing and measuring the request path without a server).
    public static func decode<T: Decodable>(_ type: T.Type, body: [UInt8], method: String, path: String) throws -> T {
        let operation = OpenAPIContract.served.operation(method: method, path: path)
        return try body.withUnsafeBytes { try decode(T.self, body: $0, operation: operation) }
    }

    /// Parses, checks and decodes `body`; `operation` nil: a route the document does not describe.
    static func decode<T: Decodable>(_ type: T.Type, body: UnsafeRawBufferPointer, operation: OpenAPIContract.Operation?) throws -> T {
        guard body.count > 0 else {
            throw APIError.malformed("The request needs a JSON body.", code: "missing_body")
        }
        let value: JSONValue
        do {
            value = try JSONBodyParser.parse(body)
        } catch {
            throw apiError(for: error)
        }
        if let operation, let refusal = operation.refusal(ofBody: value) { throw refusal }
        do {
            return try T(from: JSONValueDecoder(value))
        } catch let error as DecodingError {
            // A number the field's type cannot hold (a fraction, out of range) in a body that parsed.
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty {
                throw APIError.invalid("A value in the body is not valid here (numbers must be whole minor units).", code: "invalid_value", param: nil)
            }
            throw apiError(for: error)
        } catch let error as APIError {
            throw error
        } catch let error as any APIErrorConvertible {
            throw error.apiError
        } catch {
            throw APIError.malformed("The request body is not valid JSON.")
        }
    }

    /// The 400 for a body refused while parsing.
    static func apiError(for error: JSONBodyError) -> APIError {
        switch error {
        case .malformed: .malformed("The request body is not valid JSON (or not UTF-8).")
        case .duplicateKey(let key): duplicateKeyError(key)
        case .tooDeep: .malformed("The body nests deeper than \(TextPolicy.maximumDepth) levels.", code: "too_deep")
        }
    }

    /// The 400 for a key given twice; names the key only when it looks like a field name, so client
    /// text (possibly card data used as a key) never reaches a message.
    static func duplicateKeyError(_ key: String) -> APIError {
        let looksLikeName = (1...64).contains(key.utf8.count)
            && key.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x5F }
            && key.utf8.filter { (0x30...0x39).contains($0) }.count < 6
        return looksLikeName
            ? .malformed("The body gives the key '\(key)' more than once in one object; send each key once.", code: "duplicate_key", param: key)
            : .malformed("The body gives a key more than once in one object; send each key once.", code: "duplicate_key")
    }

    /// A JSON response with `status`.
    public static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try encoder.encode(value)
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// A JSON response with `status`, for a body written by hand (the same bytes, less CPU).
    /// Declared `throws` like the general one, so call sites read the same whichever applies.
    static func response(_ value: some HandWrittenJSON, status: HTTPResponse.Status = .ok) throws -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: value.jsonBytes)))
    }

    static func apiError(for error: DecodingError) -> APIError {
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return .malformed("The request body is not valid JSON (or not UTF-8).")
        case .dataCorrupted(let context):
            return .invalid(context.debugDescription.isEmpty ? "Invalid value." : sanitized(context.debugDescription), code: "invalid_value", param: path(context.codingPath))
        case .keyNotFound(let key, let context):
            let param = path(context.codingPath + [key])
            return .invalid("\(param) is required.", code: "missing", param: param)
        case .valueNotFound(_, let context):
            let param = path(context.codingPath)
            return .invalid("\(param) must not be null.", code: "missing", param: param)
        case .typeMismatch(let type, let context):
            let param = path(context.codingPath)
            return .invalid("\(param.isEmpty ? "The body" : param) must be \(describe(type)).", code: "invalid_type", param: param.isEmpty ? nil : param)
        @unknown default:
            return .malformed("The request body could not be read.")
        }
    }

    /// A coding path as the API names fields: `card.number`, `customFields[0].name`.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int64.Type, is Int32.Type: "an integer"
        case is Bool.Type: "true or false"
        case is Double.Type: "a number"
        default:
            String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }

    /// Foundation's messages may quote the offending value; keep only a generic sentence.
    private static func sanitized(_ message: String) -> String {
        "The value is not valid here."
    }
}
