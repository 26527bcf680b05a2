public import Scheduler

/// PostgreSQL is a complete backend: every store protocol of the runtime and the engine's own.
extension PostgresStore: VaultStorage {}
