/// The one-time upgrade of rows an earlier build wrote without a binding (API keys, schedules and
/// their steps, transactions): each is bound as it stands, once per merchant, at start-up before
/// serving or charging.
///
/// - Rows are read in batches (`unboundRows`) and bound merchant by merchant (`bind`), each batch
///   in a write of its own.
/// - A merchant whose rows are known to be bound (its keyed audit chain holds a `markerAction`
///   event, or its `merchant.created` event says `boundAtCreation` is `true`) has no rows of an
///   earlier build: an unbound row of it was inserted, or stripped of its binding, since, by
///   someone writing to the database. It is left unbound and its id returned in `refused`.
/// - Rows of off-boarded merchants (keys destroyed, `KeyringError.keyUnavailable`) are left: they
///   can never be used.
/// - The `markerAction` event is appended once per merchant after all its rows are bound, with the
///   counts `bind` reported summed over the batches: a start that stops half-way binds the rest at
///   the next start instead of refusing them. The audit chain is what makes the record
///   trustworthy: deleting or editing the event breaks it (`vault audit verify`).
public struct LegacyRowBinder<Row: Sendable>: Sendable {
    /// The audit action recording that a merchant's rows of an earlier build were bound.
    public let markerAction: String
    /// The `merchant.created` detail that says the merchant's rows were bound from its creation.
    public let boundAtCreation: String
    private let identity: @Sendable (Row) -> (id: String, merchantID: String)
    private let unboundRows: @Sendable (_ limit: Int) async throws -> [Row]
    private let bind: @Sendable (_ rows: [Row], _ merchantID: String) async throws -> [String: Int]

    /// - Parameters:
    ///   - identity: a row's id (what `refused` lists) and its merchant's.
    ///   - unboundRows: up to `limit` rows without a binding, in a stable order.
    ///   - bind: binds these rows of one merchant in one write, without an audit event; returns the
    ///     counts to record in the marker event (e.g. `["schedules": 2, "steps": 14]`).
    ///     Throws `KeyringError.keyUnavailable` for an off-boarded merchant.
    public init(
        markerAction: String, boundAtCreation: String, identity: @escaping @Sendable (Row) -> (id: String, merchantID: String),
        unboundRows: @escaping @Sendable (_ limit: Int) async throws -> [Row],
        bind: @escaping @Sendable (_ rows: [Row], _ merchantID: String) async throws -> [String: Int]
    ) {
        self.markerAction = markerAction
        self.boundAtCreation = boundAtCreation
        self.identity = identity
        self.unboundRows = unboundRows
        self.bind = bind
    }

    /// Binds every unbound row of a merchant not yet bound, `batchSize` rows at a time, then
    /// appends each upgraded merchant's marker event to `audit`.
    /// - Returns: how many rows were bound, and the ids of the rows refused.
    public func run(audit: any AuditStore, batchSize: Int) async throws -> (bound: Int, refused: [String]) {
        var bound = 0
        var left: Set<String> = []
        var refused: [String] = []
        var merchantsBound: [String: Bool] = [:]
        var upgraded: [String: [String: Int]] = [:]
        while true {
            let rows = try await unboundRows(batchSize + left.count).filter { !left.contains(identity($0).id) }
            if rows.isEmpty { break }
            for (merchantID, group) in Dictionary(grouping: rows, by: { identity($0).merchantID }) {
                let ids = group.map { identity($0).id }
                let alreadyBound: Bool
                if let known = merchantsBound[merchantID] {
                    alreadyBound = known
                } else {
                    alreadyBound = try await rowsAreBound(merchantID: merchantID, in: audit)
                    merchantsBound[merchantID] = alreadyBound
                }
                guard !alreadyBound else {
                    left.formUnion(ids)
                    refused += ids
                    continue
                }
                do {
                    let counts = try await bind(group, merchantID)
                    bound += group.count
                    upgraded[merchantID, default: [:]].merge(counts, uniquingKeysWith: +)
                } catch KeyringError.keyUnavailable {
                    left.formUnion(ids)
                }
            }
        }
        for (merchantID, counts) in upgraded.sorted(by: { $0.key < $1.key }) {
            try await audit.appendAudit(
                AuditEntry(
                    merchantID: merchantID, actor: "system", action: markerAction, objectType: "merchant", objectID: merchantID,
                    details: counts.mapValues(String.init)))
        }
        return (bound, refused)
    }

    /// Whether the merchant's rows are known to be bound: its keyed audit chain says it was created
    /// by a build that binds them, or that its rows of an earlier build were bound.
    func rowsAreBound(merchantID: String, in audit: any AuditStore) async throws -> Bool {
        let upgraded = try await audit.auditEvents(merchantID: merchantID, filter: AuditFilter(action: markerAction), before: nil, limit: 1)
        if !upgraded.isEmpty { return true }
        let created = try await audit.auditEvents(merchantID: merchantID, filter: AuditFilter(action: "merchant.created"), before: nil, limit: 1)
        return created.contains { $0.details[boundAtCreation] == "true" }
    }
}
