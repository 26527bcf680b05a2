import Foundation
@testable import VaultAPI

/// The request-body path the server had before bodies were parsed once, kept as the test oracle of
/// the new one (``JSONCoding/decode(_:body:operation:)``): scan the bytes for a duplicate key, build
/// a Foundation tree with `JSONSerialization` to check unknown fields and ``TextPolicy`` against the
/// operation, then decode with `JSONDecoder`. `RequestBodyDifferentialTests` compares the two.
enum OldJSONBodyPath {
    static func decode<T: Decodable>(_ type: T.Type, body: [UInt8], operation: OpenAPIContract.Operation?) throws -> T {
        guard !body.isEmpty else {
            throw APIError.malformed("The request needs a JSON body.", code: "missing_body")
        }
        if let key = body.withUnsafeBytes(JSONDuplicateKeys.firstDuplicate) {
            throw JSONCoding.duplicateKeyError(key)
        }
        let data = Data(body)
        if let operation, let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) {
            if operation.body != .any, let error = unknownBodyField(in: object, operation: operation) { throw error }
            if let error = textViolation(in: object, shape: operation.body, path: []) { throw error }
        }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty,
                (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil
            {
                throw APIError.invalid("A value in the body is not valid here (numbers must be whole minor units).", code: "invalid_value", param: nil)
            }
            throw JSONCoding.apiError(for: error)
        } catch let error as APIError {
            throw error
        } catch let error as any APIErrorConvertible {
            throw error.apiError
        } catch {
            throw APIError.malformed("The request body is not valid JSON.")
        }
    }

    /// The 400 for the first body field (depth first, keys in sorted order) the operation's schema does not declare.
    static func unknownBodyField(in value: Any, operation: OpenAPIContract.Operation) -> APIError? {
        guard let (path, known) = firstUnknown(in: value, shape: operation.body, path: []) else { return nil }
        let owner = path.count > 1 ? OpenAPIContract.name(path.dropLast()) ?? "this object" : "this request"
        return OpenAPIContract.unknown(path: path, message: {
            "Unknown parameter '\($0)'; \(owner) takes only \(known.sorted().joined(separator: ", "))."
        })
    }

    /// The path (keys and array indices) of the first unknown key, with the keys its object takes.
    static func firstUnknown(
        in value: Any, shape: OpenAPIContract.Shape, path: [OpenAPIContract.PathElement]
    ) -> ([OpenAPIContract.PathElement], Set<String>)? {
        switch shape {
        case .any, .text:
            return nil
        case .array(let item):
            guard let items = value as? [Any] else { return nil }
            for (index, element) in items.enumerated() {
                if let found = firstUnknown(in: element, shape: item, path: path + [.index(index)]) { return found }
            }
            return nil
        case .object(let fields):
            guard let object = value as? [String: Any] else { return nil }
            for key in object.keys.sorted() {
                guard let field = fields[key] else { return (path + [.key(key)], Set(fields.keys)) }
                if let found = firstUnknown(in: object[key] as Any, shape: field, path: path + [.key(key)]) { return found }
            }
            return nil
        }
    }

    /// The first string in `value` that breaks ``TextPolicy``, held to `shape`'s limits where it gives them.
    static func textViolation(in value: Any, shape: OpenAPIContract.Shape, path: [OpenAPIContract.PathElement]) -> APIError? {
        guard path.count <= TextPolicy.maximumDepth else {
            return .malformed("The body nests deeper than \(TextPolicy.maximumDepth) levels.", code: "too_deep")
        }
        switch value {
        case let text as String:
            let maxLength: Int? = if case .text(let maxLength, _) = shape { maxLength } else { nil }
            return TextPolicy.violation(in: text, field: OpenAPIContract.name(path), maxLength: maxLength)
        case let items as [Any]:
            let item: OpenAPIContract.Shape = if case .array(let item) = shape { item } else { .any }
            for (index, element) in items.enumerated() {
                if let error = textViolation(in: element, shape: item, path: path + [.index(index)]) { return error }
            }
            return nil
        case let object as [String: Any]:
            let fields: [String: OpenAPIContract.Shape] = if case .object(let fields) = shape { fields } else { [:] }
            for key in object.keys.sorted() {
                if let error = TextPolicy.violation(in: key, field: OpenAPIContract.name(path), maxLength: nil) { return error }
                if let error = textViolation(in: object[key] as Any, shape: fields[key] ?? .any, path: path + [.key(key)]) { return error }
            }
            return nil
        default:
            return nil
        }
    }
}
