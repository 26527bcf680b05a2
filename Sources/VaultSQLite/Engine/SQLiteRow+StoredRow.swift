public import Vault

/// The domain reads its values from SQLite rows through `StoredRow` (e.g. `Transaction(storedRow:)`).
extension SQLiteRow: StoredRow {}
