import Foundation

/// What the served OpenAPI document says each operation takes, enforced at run time: a
/// query parameter or JSON body field the document does not declare is a 400 `unknown_parameter`
/// naming it, on every operation, so a misspelt filter (`?stauts=declined`) or field is refused
/// instead of silently ignored.
///
/// The document is the one source: declaring a parameter or property in `openapi.yaml` is what lets
/// the server take it. An object is closed where its schema says `additionalProperties: false` or
/// `unevaluatedProperties: false`; names a schema forbids with `not: {required: [...]}` are known
/// (the handler answers them with its own 422, e.g. `merchantReference` in a card update).
struct OpenAPIContract: Sendable {
    /// The fields a JSON value may carry.
    indirect enum Shape: Sendable, Equatable {
        /// Not checked: a scalar, or an object open to any key.
        case any
        /// An object that takes only these keys, each with its own shape.
        case object([String: Shape])
        /// An array whose items have this shape.
        case array(Shape)
        /// A string: its declared `maxLength` (nil: none declared), and whether it is free text (no
        /// `pattern`, `enum`, `const` or `format` constrains it).
        case text(maxLength: Int?, freeText: Bool)
    }

    /// One operation: its query parameters and the shape of its JSON body.
    struct Operation: Sendable {
        /// Every query parameter the operation declares.
        let queryParameters: Set<String>
        /// The string query parameters, with their shapes (``Shape/text(maxLength:freeText:)``).
        let textParameters: [String: Shape]
        /// The shape of the JSON request body (`.any` without one).
        let body: Shape
    }

    private struct Route: Sendable {
        let method: String
        /// Path segments' UTF-8 bytes; nil stands for a `{parameter}`.
        let segments: [[UInt8]?]
        let operation: Operation
    }

    /// Routes by method and segment count, literal segments before parameters.
    private let routes: [RouteKey: [Route]]

    private struct RouteKey: Hashable, Sendable {
        let method: String
        let segments: Int
    }

    /// The contract of the document the server serves.
    static let served = OpenAPIContract(document: OpenAPIController.json)

    /// Reads the contract from a document's JSON bytes (an empty contract for anything unreadable).
    init(document json: [UInt8]) {
        let root = (try? JSONSerialization.jsonObject(with: Data(json))) as? [String: Any] ?? [:]
        let reader = SchemaReader(root: root)
        var routes: [Route] = []
        for (path, item) in root["paths"] as? [String: Any] ?? [:] {
            guard let item = item as? [String: Any] else { continue }
            let segments = path.split(separator: "/", omittingEmptySubsequences: false).map { segment -> [UInt8]? in
                segment.hasPrefix("{") && segment.hasSuffix("}") ? nil : Array(segment.utf8)
            }
            let shared = item["parameters"] as? [Any] ?? []
            for method in ["get", "put", "post", "delete", "patch"] {
                guard let operation = item[method] as? [String: Any] else { continue }
                var names: Set<String> = []
                var texts: [String: Shape] = [:]
                for parameter in shared + (operation["parameters"] as? [Any] ?? []) {
                    let parameter = reader.resolve(parameter)
                    if parameter["in"] as? String == "query", let name = parameter["name"] as? String {
                        names.insert(name)
                        if case .text = reader.shape(parameter["schema"] ?? [:]) { texts[name] = reader.shape(parameter["schema"] ?? [:]) }
                    }
                }
                let requestBody = reader.resolve(operation["requestBody"] ?? [:])
                let schema = ((requestBody["content"] as? [String: Any])?["application/json"] as? [String: Any])?["schema"]
                routes.append(Route(
                    method: method.uppercased(), segments: segments,
                    operation: Operation(queryParameters: names, textParameters: texts, body: schema.map { reader.shape($0) } ?? .any)))
            }
        }
        // A literal segment wins over a parameter (`/v1/schedules/preview` before `/v1/schedules/{id}`).
        self.routes = Dictionary(grouping: routes) { RouteKey(method: $0.method, segments: $0.segments.count) }
            .mapValues { $0.sorted { $0.segments.filter { $0 == nil }.count < $1.segments.filter { $0 == nil }.count } }
    }

    /// The documented operation for a request's method and (undecoded) path, if any.
    ///
    /// Asked on every request (the query check and the body check), so it walks the path's bytes
    /// in place: no segment array, no generic iterators (they were a third of decoding a registration body).
    func operation(method: String, path: String) -> Operation? {
        var path = path
        return path.withUTF8 { bytes -> Operation? in
            let slash = UInt8(ascii: "/")
            var count = 1
            for byte in bytes where byte == slash { count += 1 }
            guard let candidates = routes[RouteKey(method: method, segments: count)] else { return nil }
            candidates: for route in candidates {
                var start = 0
                for expected in route.segments {
                    var end = start
                    while end < bytes.count, bytes[end] != slash { end += 1 }
                    if let expected {
                        guard end - start == expected.count else { continue candidates }
                        for offset in 0..<expected.count where bytes[start + offset] != expected[offset] { continue candidates }
                    } else if end == start {
                        continue candidates
                    }
                    start = end + 1
                }
                return route.operation
            }
            return nil
        }
    }
}

extension OpenAPIContract.Operation {
    /// The 400 for the first query parameter (in sorted order) the operation does not declare.
    func unknownQueryParameter(in names: some Sequence<String>) -> APIError? {
        guard let name = names.filter({ !queryParameters.contains($0) }).sorted().first else { return nil }
        let allowed = queryParameters.isEmpty ? "no query parameters" : "only " + queryParameters.sorted().joined(separator: ", ")
        return OpenAPIContract.unknown(path: [name], message: { "Unknown query parameter '\($0)'; this request takes \(allowed)." })
    }
}

extension OpenAPIContract {
    enum PathElement {
        case key(String)
        case index(Int)
    }

    /// `card.number`, `customFields[0].name`; nil when a key does not look like a field name, so
    /// client text (possibly card data sent as a key) never reaches a message.
    static func name(_ path: some Collection<PathElement>) -> String? {
        var text = ""
        for element in path {
            switch element {
            case .index(let index):
                text += "[\(index)]"
            case .key(let key):
                guard looksLikeName(key) else { return nil }
                text += text.isEmpty ? key : "." + key
            }
        }
        return text
    }

    fileprivate static func unknown(path: [String], message: (String) -> String) -> APIError {
        unknown(path: path.map(PathElement.key), message: message)
    }

    /// The 400 for an unknown parameter at `path`, naming it only when it looks like a field name.
    static func unknown(path: [PathElement], message: (String) -> String) -> APIError {
        if let name = name(path) {
            return .malformed(message(name), code: "unknown_parameter", param: name)
        }
        return .malformed(
            "The request has a parameter this operation does not take (its name is not shown: it does not look like a field name).",
            code: "unknown_parameter", param: nil)
    }

    /// 1-64 ASCII letters, digits, `_`, `-` or `.`, fewer than six digits.
    private static func looksLikeName(_ key: String) -> Bool {
        (1...64).contains(key.utf8.count)
            && key.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x5F || $0 == 0x2D }
            && key.utf8.filter { (0x30...0x39).contains($0) }.count < 6
    }
}

/// Reads shapes out of the document's schemas, through `$ref`, `allOf`, `oneOf`, `anyOf` and `if`/`then`/`else`.
private struct SchemaReader {
    let root: [String: Any]

    /// Follows a local `$ref` (at most 32 deep).
    func resolve(_ value: Any, depth: Int = 0) -> [String: Any] {
        guard let object = value as? [String: Any] else { return [:] }
        guard depth < 32, let reference = object["$ref"] as? String, reference.hasPrefix("#/") else { return object }
        var target: Any? = root
        for token in reference.dropFirst(2).split(separator: "/") {
            target = (target as? [String: Any])?[token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")]
        }
        return resolve(target ?? [:], depth: depth + 1)
    }

    func shape(_ value: Any, depth: Int = 0) -> OpenAPIContract.Shape {
        guard depth < 16 else { return .any }
        let schema = resolve(value)
        if let items = schema["items"] { return .array(shape(items, depth: depth + 1)) }
        if Self.isString(schema) {
            let constrained = ["pattern", "enum", "const", "format"].contains { schema[$0] != nil }
            return .text(maxLength: (schema["maxLength"] as? NSNumber)?.intValue, freeText: !constrained)
        }
        var collected = Collected()
        collect(schema, into: &collected, depth: depth)
        guard collected.closed else { return .any }
        var fields: [String: OpenAPIContract.Shape] = [:]
        for (name, schemas) in collected.properties {
            fields[name] = schemas.lazy.map { shape($0, depth: depth + 1) }.first { $0 != .any } ?? .any
        }
        for name in collected.forbidden where fields[name] == nil { fields[name] = .any }
        return .object(fields)
    }

    /// `type: string` or `type: [string, "null"]`.
    private static func isString(_ schema: [String: Any]) -> Bool {
        if let type = schema["type"] as? String { return type == "string" }
        if let types = schema["type"] as? [String] { return types.contains("string") && !types.contains("object") && !types.contains("array") }
        return false
    }

    private struct Collected {
        var closed = false
        var properties: [String: [Any]] = [:]
        var forbidden: Set<String> = []
    }

    private func collect(_ schema: [String: Any], into collected: inout Collected, depth: Int) {
        guard depth < 16 else { return }
        if schema["additionalProperties"] as? Bool == false || schema["unevaluatedProperties"] as? Bool == false { collected.closed = true }
        for (name, property) in schema["properties"] as? [String: Any] ?? [:] { collected.properties[name, default: []].append(property) }
        if let excluded = schema["not"] { requiredNames(resolve(excluded), into: &collected.forbidden, depth: depth + 1) }
        for key in ["allOf", "oneOf", "anyOf"] {
            for branch in schema[key] as? [Any] ?? [] { collect(resolve(branch), into: &collected, depth: depth + 1) }
        }
        for key in ["if", "then", "else"] {
            if let branch = schema[key] { collect(resolve(branch), into: &collected, depth: depth + 1) }
        }
    }

    /// The names `required` lists in a `not` schema and its `anyOf`/`oneOf` branches.
    private func requiredNames(_ schema: [String: Any], into names: inout Set<String>, depth: Int) {
        guard depth < 16 else { return }
        names.formUnion(schema["required"] as? [String] ?? [])
        for key in ["anyOf", "oneOf", "allOf"] {
            for branch in schema[key] as? [Any] ?? [] { requiredNames(resolve(branch), into: &names, depth: depth + 1) }
        }
    }
}
