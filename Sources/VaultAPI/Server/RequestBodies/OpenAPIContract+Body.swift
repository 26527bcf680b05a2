extension OpenAPIContract.Operation {
    /// The refusal of a parsed body by the operation's contract, or nil: the first field the schema
    /// does not declare (400 `unknown_parameter`), else the first string or key that breaks
    /// ``TextPolicy`` (422). "First" is depth first with each object's keys in sorted order, so the
    /// answer does not depend on the order the client wrote the members in.
    ///
    /// Most bodies break nothing: one walk in the client's order, building no paths, says so; only a
    /// body that breaks something is walked again in sorted order to name the field.
    func refusal(ofBody body: JSONValue) -> APIError? {
        guard OpenAPIContract.breaksContract(body, shape: self.body) else { return nil }
        if let error = unknownBodyField(in: body) { return error }
        return OpenAPIContract.textViolation(in: body, shape: self.body, path: [])
    }

    /// The 400 for the first body field (depth first, keys in sorted order) the operation's schema does not declare.
    func unknownBodyField(in body: JSONValue) -> APIError? {
        guard let (path, known) = OpenAPIContract.firstUnknown(in: body, shape: self.body, path: []) else { return nil }
        let owner = path.count > 1 ? OpenAPIContract.name(path.dropLast()) ?? "this object" : "this request"
        return OpenAPIContract.unknown(path: path, message: {
            "Unknown parameter '\($0)'; \(owner) takes only \(known.sorted().joined(separator: ", "))."
        })
    }
}

extension OpenAPIContract {
    /// Whether `value` has an undeclared field or a text ``TextPolicy`` refuses, anywhere.
    static func breaksContract(_ value: JSONValue, shape: Shape) -> Bool {
        switch value {
        case .string(let text):
            let maxLength: Int? = if case .text(let maxLength, _) = shape { maxLength } else { nil }
            return TextPolicy.violation(in: text, field: nil, maxLength: maxLength) != nil
        case .array(let items):
            let item: Shape = if case .array(let item) = shape { item } else { .any }
            return items.contains { breaksContract($0, shape: item) }
        case .object(let object):
            let fields: [String: Shape]? = if case .object(let fields) = shape { fields } else { nil }
            for member in object.members {
                if TextPolicy.violation(in: member.key, field: nil, maxLength: nil) != nil { return true }
                let field: Shape
                if let fields {
                    guard let declared = fields[member.key] else { return true }
                    field = declared
                } else {
                    field = .any
                }
                if breaksContract(member.value, shape: field) { return true }
            }
            return false
        case .null, .bool, .number:
            return false
        }
    }

    /// The path (keys and array indices) of the first unknown key, with the keys its object takes.
    static func firstUnknown(in value: JSONValue, shape: Shape, path: [PathElement]) -> ([PathElement], Set<String>)? {
        switch shape {
        case .any, .text:
            return nil
        case .array(let item):
            guard case .array(let items) = value else { return nil }
            for (index, element) in items.enumerated() {
                if let found = firstUnknown(in: element, shape: item, path: path + [.index(index)]) { return found }
            }
            return nil
        case .object(let fields):
            guard case .object(let object) = value else { return nil }
            for member in object.members.sorted(by: { $0.key < $1.key }) {
                guard let field = fields[member.key] else { return (path + [.key(member.key)], Set(fields.keys)) }
                if let found = firstUnknown(in: member.value, shape: field, path: path + [.key(member.key)]) { return found }
            }
            return nil
        }
    }

    /// The first string in `value` (depth first, keys in sorted order) that breaks ``TextPolicy``,
    /// held to `shape`'s limits where it gives them. (The parser already refused a body nested
    /// deeper than ``TextPolicy/maximumDepth``.)
    static func textViolation(in value: JSONValue, shape: Shape, path: [PathElement]) -> APIError? {
        switch value {
        case .string(let text):
            let maxLength: Int? = if case .text(let maxLength, _) = shape { maxLength } else { nil }
            return TextPolicy.violation(in: text, field: name(path), maxLength: maxLength)
        case .array(let items):
            let item: Shape = if case .array(let item) = shape { item } else { .any }
            for (index, element) in items.enumerated() {
                if let error = textViolation(in: element, shape: item, path: path + [.index(index)]) { return error }
            }
            return nil
        case .object(let object):
            let fields: [String: Shape] = if case .object(let fields) = shape { fields } else { [:] }
            for member in object.members.sorted(by: { $0.key < $1.key }) {
                if let error = TextPolicy.violation(in: member.key, field: name(path), maxLength: nil) { return error }
                if let error = textViolation(in: member.value, shape: fields[member.key] ?? .any, path: path + [.key(member.key)]) { return error }
            }
            return nil
        case .null, .bool, .number:
            return nil
        }
    }
}
