public import Logging
public import PostgresNIO
import Synchronization

/// The names under which the engine prepares its fixed statements: one per statement text, the
/// same on every connection of the process, handed out in order so two texts never share one.
///
/// postgres-nio prepares a named statement on a connection at its first execution there (Parse
/// and Describe, one round trip more) and afterwards only binds and executes it: the server
/// parses and analyses the text once per connection, and after five executions keeps a generic
/// plan when it costs no more than the custom ones, so it no longer plans either. At most
/// `limit` texts are named; past that a statement runs unnamed, as every statement did before,
/// so a text that wrongly varies with its data (an IN-list written out) cannot fill each
/// backend's memory with statements.
final class PostgresStatementNames: Sendable {
    /// The process's names, which every connection uses. At most 512 texts: the engine's fixed
    /// statements are far fewer.
    static let shared = PostgresStatementNames(limit: 512)

    /// How many distinct texts are named at most.
    let limit: Int
    private let names = Mutex<[String: String]>([:])

    init(limit: Int) {
        self.limit = limit
    }

    /// The name of `sql`, or nil when `limit` texts already have one.
    func name(for sql: String) -> String? {
        names.withLock { names in
            if let name = names[sql] { return name }
            guard names.count < limit else { return nil }
            let name = "vault_\(names.count + 1)"
            names[sql] = name
            return name
        }
    }
}

/// The statement handed to postgres-nio's `execute`: its name and text are those of the
/// execution under way.
///
/// postgres-nio wants a statement's name and text as static members of a type, one type per
/// statement. The engine's statements are `PostgresQuery` values built where they are used (their
/// text is the single copy), so the static members read a task-local set around the one call of
/// `execute`: postgres-nio reads them inside that call (into the task it sends to the channel),
/// never later. The parameter types are left to postgres-nio, which takes them from the first
/// execution's binds on each connection, as for an unnamed statement; a nil is bound as a NULL of
/// its Swift type's SQL type (`PostgresQuery+TypedNull.swift`), so no parameter is left for the
/// server to guess from the first execution.
struct PostgresNamedStatement: PostgresPreparedStatement {
    struct Text: Sendable {
        let name: String
        let sql: String
    }

    /// The statement being executed (set only around `execute`).
    @TaskLocal static var current = Text(name: "", sql: "")

    static var name: String {
        let name = current.name
        precondition(!name.isEmpty, "a named statement's name was read outside its execution")
        return name
    }

    static var sql: String { current.sql }

    typealias Row = PostgresRow

    let binds: PostgresBindings

    func makeBindings() -> PostgresBindings { binds }

    func decodeRow(_ row: PostgresRow) -> PostgresRow { row }

    /// Whether `error` may be the failure of the statement's preparation (Parse): a syntax or
    /// catalogue error (SQLSTATE class 42), a transaction already failed (25), a statement the
    /// server no longer has (26, as behind a transaction-pooling proxy), a cached plan whose result
    /// changed (0A000). postgres-nio remembers a failed preparation for the connection's lifetime
    /// and fails every later execution of that name there at once, so the engine closes such a
    /// connection and its pool opens a fresh one. Constraint, data and lock errors (classes 22,
    /// 23, 40, 55) come from executing a prepared statement and leave the connection open.
    /// Whether `error` is PostgreSQL refusing a prepared statement whose result columns changed
    /// since it was prepared (0A000, a table altered by a migration): nothing ran, and the same
    /// statement succeeds once prepared again on another connection.
    static func isStalePlan(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError, error.code == .server else { return false }
        return error.serverInfo?[.sqlState] == "0A000"
    }

    static func mayHaveFailedPreparation(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError, error.code == .server, let state = error.serverInfo?[.sqlState] else { return false }
        return ["25", "26", "42", "0A"].contains(String(state.prefix(2)))
    }
}

extension PostgresConnection {
    /// Runs `query` as a named statement prepared once on this connection and collects its rows;
    /// counted once per execution, as `checkedQuery` counts.
    ///
    /// For the engine's hot statements whose text never varies with their data: an IN-list or a
    /// VALUES list written out per row makes a text per length (bind one array instead, or use
    /// the unnamed forms), and the same text must bind the same Swift types wherever it is used.
    func preparedRows(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        guard !isClosed else { throw PostgresStoreError.connectionClosed }
        PostgresStatementCounter.current?.record(query.sql)
        guard let name = PostgresStatementNames.shared.name(for: query.sql) else {
            return try await self.query(query, logger: logger).collect()
        }
        do {
            return try await PostgresNamedStatement.$current.withValue(.init(name: name, sql: query.sql)) {
                var rows: [PostgresRow] = []
                for try await row in try await execute(PostgresNamedStatement(binds: query.binds), logger: logger) {
                    rows.append(row)
                }
                return rows
            }
        } catch {
            if PostgresNamedStatement.mayHaveFailedPreparation(error) { try? await close() }
            throw error
        }
    }

    /// `rows(_:logger:)` for a statement prepared once per connection (`preparedRows`).
    public func rows(prepared query: PostgresQuery, logger: Logger) async throws -> [PostgresRowReader] {
        do {
            return try await preparedRows(query, logger: logger).map(PostgresRowReader.init)
        } catch {
            throw PostgresStoreError.mapping(error) ?? error
        }
    }

    /// `row(_:logger:)` for a statement prepared once per connection.
    public func row(prepared query: PostgresQuery, logger: Logger) async throws -> PostgresRowReader? {
        try await rows(prepared: query, logger: logger).first
    }

    /// `run(_:logger:)` for a statement prepared once per connection: the number of rows returned.
    @discardableResult
    public func run(prepared query: PostgresQuery, logger: Logger) async throws -> Int {
        do {
            return try await preparedRows(query, logger: logger).count
        } catch {
            throw PostgresStoreError.mapping(error) ?? error
        }
    }
}
