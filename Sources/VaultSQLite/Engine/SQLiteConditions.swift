/// The optional conditions of a search (`GET /v1/transactions`, `GET /v1/audit-events`): each
/// condition whose value is given is appended as ` AND <condition>` with its value bound by
/// position, so filter values never become SQL text.
public struct SQLiteConditions {
    private var conditions: [(sql: String, value: any SQLiteBindable)] = []

    /// No conditions.
    public init() {}

    /// Adds `sql` (with one `?`) when `value` is not nil.
    public mutating func add<Value: SQLiteBindable>(_ sql: String, _ value: Value?) {
        if let value { conditions.append((sql, value)) }
    }

    /// Appends the given conditions to `sql` and their values to `arguments`.
    public func append(to sql: inout String, arguments: inout [any SQLiteBindable]) {
        for condition in conditions {
            sql += " AND " + condition.sql
            arguments.append(condition.value)
        }
    }
}
