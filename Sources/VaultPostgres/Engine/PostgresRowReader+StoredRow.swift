public import Vault

/// The domain reads its values from PostgreSQL rows through `StoredRow` (e.g. `Transaction(storedRow:)`).
extension PostgresRowReader: StoredRow {}
