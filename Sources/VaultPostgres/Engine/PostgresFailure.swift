import NIOCore
import PostgresNIO

/// What a failed query says about the server behind the pool: still the writable primary, or lost
/// (connection gone, server shutting down or restarting) or read-only (a standby, or a primary
/// demoted after a failover). The engine searches the writable server again after the latter two.
enum PostgresFailure: Equatable {
    /// The connection broke or the server is going away: SQLSTATE class 08, 57P01-57P03, a closed
    /// or unclean connection, a pool that gave up connecting or was replaced.
    case connectionLost
    /// SQLSTATE 25006 (`read_only_sql_transaction`): a write reached a server in recovery.
    case readOnly
    /// Transactions waited for a connection and the pool handed none out (`leaseStall`): the
    /// server may have died while the pool was idle. Not an error of a query.
    case stalled

    /// The failure `error` shows, or nil for an ordinary error (a constraint, a bug, a timeout the
    /// caller chose): those leave the pool alone.
    /// `beginning`: the error answered the transaction's `BEGIN`, where a standby refuses
    /// `READ WRITE` with 0A000 (`cannot set transaction read-write mode during recovery`).
    init?(_ error: any Error, beginning: Bool = false) {
        if error as? PostgresStoreError == .connectionClosed {
            self = .connectionLost
        } else if let error = error as? PSQLError {
            switch error.code {
            case .server:
                guard let state = error.serverInfo?[.sqlState] else { return nil }
                if state == "25006" || (beginning && state == "0A000") {
                    self = .readOnly
                } else if state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state) {
                    self = .connectionLost
                } else {
                    return nil
                }
            case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown, .poolClosed:
                self = .connectionLost
            default:
                return nil
            }
        } else if String(describing: type(of: error)) == "ConnectionPoolError" {
            // The pool's own error (its circuit breaker: no connection could be made for a while;
            // or shut down), passed through unmapped by postgres-nio. Matched by name so the engine
            // does not depend on the underscored `_ConnectionPoolModule`; any of its cases means
            // the pool has no connection to give.
            self = .connectionLost
        } else if error is ChannelError || error is IOError {
            self = .connectionLost
        } else {
            return nil
        }
    }
}

extension PostgresFailure {
    /// Whether `error` is the failure of one statement alone: the server refused it (a constraint,
    /// a trigger, a deadlock, a timeout) or the caller's work failed, and the connection and the
    /// server still serve the other statements of a group. False for a lost connection or server,
    /// a read-only server and a commit of unknown outcome: those fail every statement of the group.
    static func isOfTheStatementAlone(_ error: any Error) -> Bool {
        PostgresFailure(error) == nil && !(error is PostgresFailoverError)
    }
}

/// Errors of the engine's failover.
public enum PostgresFailoverError: Error, Equatable, CustomStringConvertible {
    /// The connection was lost while `COMMIT` was under way: the transaction may or may not have
    /// committed. Never reported as success: the caller answers 5xx, and a client retries with
    /// its idempotency key.
    case commitOutcomeUnknown
    /// No host of the URL answered as wanted (writable, with `target_session_attrs=read-write`)
    /// within the search's deadline; the reason names each host, never the password.
    case noServer(String)

    public var description: String {
        switch self {
        case .commitOutcomeUnknown: "the database connection was lost during COMMIT: the outcome is unknown"
        case .noServer(let reason): "database unavailable: \(reason)"
        }
    }
}
