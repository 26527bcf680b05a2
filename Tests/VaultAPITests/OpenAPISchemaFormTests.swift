import Foundation
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
import VaultSQLite
@testable import VaultAppTestSupport

/// The served document is one that client generators accept and its schemas say
/// what the vault takes where a schema can say it.
@Suite struct OpenAPISchemaFormTests {
    private static func document() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(OpenAPIController.json)) as? [String: Any])
    }

    /// Every place of the document where a schema stands, with its JSON path.
    private static func schemaSlots(_ document: [String: Any]) -> [(path: String, value: Any)] {
        var slots: [(String, Any)] = []
        func walkSchema(_ value: Any, _ path: String) {
            slots.append((path, value))
            guard let schema = value as? [String: Any] else { return }
            for key in ["not", "if", "then", "else", "items", "contains", "propertyNames"] {
                if let child = schema[key] { walkSchema(child, "\(path).\(key)") }
            }
            for key in ["allOf", "anyOf", "oneOf", "prefixItems"] {
                for (index, child) in (schema[key] as? [Any] ?? []).enumerated() { walkSchema(child, "\(path).\(key)[\(index)]") }
            }
            for key in ["properties", "patternProperties", "dependentSchemas"] {
                for (name, child) in schema[key] as? [String: Any] ?? [:] { walkSchema(child, "\(path).\(key).\(name)") }
            }
            if let extra = schema["additionalProperties"] as? [String: Any] { walkSchema(extra, "\(path).additionalProperties") }
        }
        func walkContent(_ holder: [String: Any], _ path: String) {
            for (type, media) in holder["content"] as? [String: Any] ?? [:] {
                if let schema = (media as? [String: Any])?["schema"] { walkSchema(schema, "\(path).content.\(type).schema") }
            }
        }
        let components = document["components"] as? [String: Any] ?? [:]
        for (name, schema) in components["schemas"] as? [String: Any] ?? [:] { walkSchema(schema, "schemas.\(name)") }
        for (name, parameter) in components["parameters"] as? [String: Any] ?? [:] {
            if let schema = (parameter as? [String: Any])?["schema"] { walkSchema(schema, "parameters.\(name).schema") }
        }
        for (name, response) in components["responses"] as? [String: Any] ?? [:] {
            walkContent(response as? [String: Any] ?? [:], "responses.\(name)")
        }
        for (path, item) in document["paths"] as? [String: Any] ?? [:] {
            for (method, operation) in item as? [String: Any] ?? [:] {
                guard let operation = operation as? [String: Any] else { continue }
                if let body = operation["requestBody"] as? [String: Any] { walkContent(body, "\(method) \(path).requestBody") }
                for (status, response) in operation["responses"] as? [String: Any] ?? [:] {
                    walkContent(response as? [String: Any] ?? [:], "\(method) \(path).\(status)")
                }
            }
        }
        return slots
    }

    @Test func noSchemaIsABooleanSoGeneratorsThatRefuseThemAcceptTheDocument() throws {
        // openapi-python-client refused `properties: {card: false}` in oneOf branches: "must not be
        // present" is `not: {required: [...]}` instead.
        let booleans = Self.schemaSlots(try Self.document()).filter { $0.value is Bool || $0.value is NSNumber }.map(\.path)
        #expect(booleans.isEmpty, "boolean schemas at \(booleans.sorted())")
    }

    @Test func noSchemaWithPropertiesHasASiblingCombinatorSoSwiftOpenAPIGeneratorKeepsItsFields() throws {
        // swift-openapi-generator 1.14 (OpenAPIKit) reads a schema with `allOf`/`anyOf`/`oneOf` as that
        // combinator alone (ScheduleRequest and TransactionRequest lost every field) and skips one with a
        // top-level `not` (SecureCardUpdate, ScheduleChange). Cross-field rules go under `if`/`then`.
        let mixed = Self.schemaSlots(try Self.document()).compactMap { slot -> String? in
            guard let schema = slot.value as? [String: Any], schema["properties"] != nil else { return nil }
            let combinators = ["allOf", "anyOf", "oneOf", "not"].filter { schema[$0] != nil }
            return combinators.isEmpty ? nil : "\(slot.path) (\(combinators.joined(separator: ", ")))"
        }
        #expect(mixed.isEmpty, "properties beside a combinator at \(mixed.sorted())")
    }

    @Test func noPropertyIsAConstantInOneBranchOfAnAllOfAndAnEnumInAnother() throws {
        let document = try Self.document()
        let schemas = (document["components"] as? [String: Any])?["schemas"] as? [String: Any] ?? [:]
        func resolved(_ value: Any) -> [String: Any] {
            guard let schema = value as? [String: Any] else { return [:] }
            guard let reference = schema["$ref"] as? String, reference.hasPrefix("#/components/schemas/") else { return schema }
            return resolved(schemas[String(reference.dropFirst("#/components/schemas/".count))] ?? [:])
        }
        var clashes: [String] = []
        for (path, value) in Self.schemaSlots(document) {
            guard let branches = (value as? [String: Any])?["allOf"] as? [Any] else { continue }
            var kinds: [String: Set<String>] = [:]
            for branch in branches {
                for (name, property) in resolved(branch)["properties"] as? [String: Any] ?? [:] {
                    let property = resolved(property)
                    if property["const"] != nil { kinds[name, default: []].insert("const") }
                    if property["enum"] != nil { kinds[name, default: []].insert("enum") }
                }
            }
            clashes += kinds.filter { $0.value.count > 1 }.map { "\(path).\($0.key)" }
        }
        #expect(clashes.isEmpty, "enum and const combined at \(clashes.sorted())")
    }

    @Test func theCurrencyPatternListsExactlyTheCurrenciesTheVaultTakes() throws {
        let schemas = try #require((try Self.document()["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let pattern = try #require((schemas["CurrencyCode"] as? [String: Any])?["pattern"] as? String)
        let documented = pattern.dropFirst(2).dropLast(2).split(separator: "|").map(String.init)
        #expect(documented == Currency.all.map(\.code))
        #expect("USD".range(of: pattern, options: .regularExpression) != nil)
        for refused in ["usd", "XTS", "QQQ", "USDX", "US"] {
            #expect(refused.range(of: pattern, options: .regularExpression) == nil, "\(refused) matches the currency pattern")
            #expect((try? Currency(code: refused)) == nil)
        }
    }

    @Test func theSharedErrorResponsesAreMergedIntoEveryOperationAndTheAnchorsAreNotServed() throws {
        let document = try Self.document()
        #expect(document[OpenAPIController.sourceOnlyKey] == nil)
        #expect(OpenAPIController.yaml.contains("\(OpenAPIController.sourceOnlyKey):"))
        let paths = try #require(document["paths"] as? [String: Any])
        for (path, item) in paths where path.hasPrefix("/v1/") {
            for (method, operation) in item as? [String: Any] ?? [:] {
                guard let responses = (operation as? [String: Any])?["responses"] as? [String: Any] else { continue }
                for status in ["400", "401", "429", "500", "503"] {
                    #expect(responses[status] != nil, "\(method) \(path) lacks \(status)")
                }
            }
        }
    }
}
