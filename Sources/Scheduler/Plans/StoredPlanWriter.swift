import Vault

/// Writes ``StoredPlan``'s column text by hand: the keys in the order `JSONEncoder`'s
/// `.sortedKeys` puts them (`dates`, `day`, `endAfter`, `endKind`, `endOn`, `hour`, `kind`,
/// `minute`, `month`, `start`, `v`, `zone`), absent values left out, strings escaped by
/// ``CanonicalJSON/append(string:to:)`` (which, like `.withoutEscapingSlashes`, leaves `/` as it is).
enum StoredPlanWriter {
    static func text(_ plan: StoredPlan) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(160 + 13 * (plan.dates?.count ?? 0))
        output.append(UInt8(ascii: "{"))
        if let dates = plan.dates {
            key("dates", &output)
            output.append(UInt8(ascii: "["))
            for (index, date) in dates.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                CanonicalJSON.append(string: date, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        }
        integer("day", plan.day, &output)
        integer("endAfter", plan.endAfter, &output)
        string("endKind", plan.endKind, &output)
        string("endOn", plan.endOn, &output)
        integer("hour", plan.hour, &output)
        string("kind", plan.kind, &output)
        integer("minute", plan.minute, &output)
        integer("month", plan.month, &output)
        string("start", plan.start, &output)
        integer("v", plan.version, &output)
        string("zone", plan.zone, &output)
        output.append(UInt8(ascii: "}"))
        return String(decoding: output, as: UTF8.self)
    }

    /// `"name":`, after a comma unless it is the object's first key.
    private static func key(_ name: StaticString, _ output: inout [UInt8]) {
        if output.count > 1 { output.append(UInt8(ascii: ",")) }
        output.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { output.append(contentsOf: $0) }
        output.append(UInt8(ascii: "\""))
        output.append(UInt8(ascii: ":"))
    }

    private static func string(_ name: StaticString, _ value: String?, _ output: inout [UInt8]) {
        guard let value else { return }
        key(name, &output)
        CanonicalJSON.append(string: value, to: &output)
    }

    private static func integer(_ name: StaticString, _ value: Int?, _ output: inout [UInt8]) {
        guard let value else { return }
        key(name, &output)
        output.append(contentsOf: String(value).utf8)
    }
}
