import StorageTestSupport
import Testing
@testable import Vault
@testable import VaultSQLite

@Suite(.sqliteOnly("binding of values by the SQLite engine's statements")) struct SQLiteBindingTests {
    static let values: [SQLiteValue] = [
        .null,
        .integer(0),
        .integer(Int64.min),
        .integer(Int64.max),
        .real(3.25),
        .real(-1e300),
        .text(""),
        .text("Zoë's café ✓"),
        .text("before\u{0}after"),
        .blob([]),
        .blob([0]),
        .blob([0, 1, 127, 128, 255]),
    ]

    /// A fresh database with an untyped column `v` (no type affinity, so nothing is converted).
    static func withValuesTable(_ body: (SQLiteDatabase) async throws -> Void) async throws {
        try await withTemporaryDatabase(migrations: [Migration(id: 1, name: "values", sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, v)")], body)
    }

    @Test(arguments: values)
    func everyStorageClassRoundTrips(value: SQLiteValue) async throws {
        try await Self.withValuesTable { database in
            try database.writeNow { try $0.run("INSERT INTO t (v) VALUES (\(value))") }
            let row = try database.readNow { try $0.queryOne("SELECT v, typeof(v) AS type FROM t") }
            #expect(row?["v"] == value)
            #expect(row?["type"] == .text(value.storageClassName.lowercased()))
        }
    }

    @Test func aCachedStatementBindsEachExecutionsOwnTextAndBlobsWhateverTheirSizes() async throws {
        try await Self.withValuesTable { database in
            let sizes = [0, 3, 5000, 1, 70_000, 0, 12]
            try database.writeNow { connection in
                try connection.run("CREATE TABLE many (a, b, c, d)")
                for size in sizes {
                    let text = String(repeating: "x", count: size) + "é"
                    let blob = [UInt8](repeating: UInt8(size % 251), count: size)
                    try connection.run("INSERT INTO many VALUES (\(text), \(blob), \(""), \(size))")
                }
            }
            let rows = try database.readNow { try $0.query("SELECT * FROM many ORDER BY rowid") }
            #expect(rows.count == sizes.count)
            for (row, size) in zip(rows, sizes) {
                #expect(try row.string("a") == String(repeating: "x", count: size) + "é")
                #expect(try row.blob("b") == [UInt8](repeating: UInt8(size % 251), count: size))
                #expect(row["c"] == .text(""))
                #expect(try row.int("d") == size)
            }
        }
    }

    @Test func swiftTypesBindAndReadBackTyped() async throws {
        try await Self.withValuesTable { database in
            let bytes: [UInt8] = [9, 0, 255]
            let noText: String? = nil
            let someInt: Int? = 7
            try database.writeNow { connection in
                try connection.run("CREATE TABLE typed (i, i64, i32, d, b, s, bytes, empty, none, some)")
                try connection.run(
                    """
                    INSERT INTO typed VALUES (\(42), \(Int64(1) << 40), \(Int32(-5)), \(2.5), \(true), \("text"), \(bytes), \([UInt8]()),
                        \(noText), \(someInt))
                    """
                )
            }
            let typed = try database.readNow { try $0.queryOne("SELECT * FROM typed") }
            let row = try #require(typed)
            #expect(try row.int("i") == 42)
            #expect(try row.int64("i64") == 1 << 40)
            #expect(try row.int("i32") == -5)
            #expect(try row.double("d") == 2.5)
            #expect(try row.double("i") == 42)
            #expect(try row.bool("b"))
            #expect(try row.string("s") == "text")
            #expect(try row.blob("bytes") == bytes)
            #expect(try row.blob("empty") == [])
            #expect(try row.optionalBlob("empty") == [])
            #expect(try row.optionalString("none") == nil)
            #expect(try row.optionalInt("none") == nil)
            #expect(try row.optionalInt64("none") == nil)
            #expect(try row.optionalBlob("none") == nil)
            #expect(try row.optionalInt("some") == 7)
            #expect(row["missing"] == .null)
            #expect(row["I"] == .integer(42))
        }
    }

    @Test func typedReadsRejectNullAndOtherStorageClassesWithoutShowingTheValue() throws {
        let row = SQLiteRow(columnNames: ["text", "nothing"], values: [.text("distinctive-value-91"), .null])
        let wrongType = #expect(throws: SQLiteError.self) { try row.int("text") }
        #expect(wrongType?.code == 20)
        #expect(wrongType?.description.contains("distinctive-value-91") == false)
        #expect(throws: SQLiteError.self) { try row.string("nothing") }
        #expect(throws: SQLiteError.self) { try row.blob("text") }
        #expect(throws: SQLiteError.self) { try row.optionalInt64("text") }
        #expect(throws: SQLiteError.self) { try row.bool("absent") }
    }

    @Test func forEachRowStreamsRowsAndAllowsTheSameQueryInside() async throws {
        try await Self.withValuesTable { database in
            try database.writeNow { connection in
                for number in 1...3 {
                    try connection.run("INSERT INTO t (v) VALUES (\(number))")
                }
            }
            let pairs = try database.readNow { connection in
                var pairs: [Int] = []
                try connection.forEachRow("SELECT v FROM t WHERE v >= \(1) ORDER BY v") { outer in
                    let inner = try connection.query("SELECT v FROM t WHERE v >= \(3) ORDER BY v")
                    pairs.append(try outer.int("v") * 10 + inner.count)
                }
                return pairs
            }
            #expect(pairs == [11, 21, 31])
        }
    }

    @Test func changesAndLastInsertRowIDDescribeTheLastStatement() async throws {
        try await Self.withValuesTable { database in
            let (rowID, inserted, updated) = try database.writeNow { connection in
                try connection.run("INSERT INTO t (v) VALUES (1), (2)")
                let rowID = connection.lastInsertRowID
                let inserted = connection.changes
                try connection.run("UPDATE t SET v = v + 1")
                return (rowID, inserted, connection.changes)
            }
            #expect(rowID == 2)
            #expect(inserted == 2)
            #expect(updated == 2)
        }
    }
}

@Suite struct SQLiteValueRedactionTests {
    @Test(arguments: [
        (SQLiteValue.text("value-marker-0042"), "TEXT(17 bytes)"),
        (.blob([0x76, 0x61, 0x6c]), "BLOB(3 bytes)"),
        (.integer(424_242), "INTEGER"),
        (.real(42.4242), "REAL"),
        (.null, "NULL"),
    ])
    func descriptionsNameTheStorageClassButNeverTheContents(value: SQLiteValue, expected: String) {
        #expect(String(describing: value) == expected)
        #expect(String(reflecting: value) == expected)
        let row = SQLiteRow(columnNames: ["v"], values: [value])
        var dumped = ""
        dump(row, to: &dumped)
        for printed in [String(describing: row), String(reflecting: row), dumped] {
            #expect(!printed.contains("0042"))
            #expect(!printed.contains("4242"))
            #expect(!printed.contains("118"))
        }
    }
}
