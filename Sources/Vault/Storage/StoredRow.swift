/// One result row as either storage engine returns it (`SQLiteRow`, `PostgresRowReader`): the
/// columns and formats are the same on both, so a domain value is read from a row in one place.
public protocol StoredRow {
    func string(_ column: String) throws -> String
    func optionalString(_ column: String) throws -> String?
    func int(_ column: String) throws -> Int
    func optionalInt(_ column: String) throws -> Int?
    func int64(_ column: String) throws -> Int64
    func optionalBlob(_ column: String) throws -> [UInt8]?
}
