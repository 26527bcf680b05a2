import PropertyBased
import Testing
@testable import VaultSQLite

/// The statement text as bytes: the same text whichever way it was built, the cache key of equal
/// texts equal, and a copy extended apart from its original leaving the original as it was.
@Suite struct SQLTextTests {
    /// Literal pieces a generated statement is built from (a `StaticString` cannot be generated).
    static let literals: [StaticString] = [
        "SELECT ", "id, status", " FROM schedule_steps", " WHERE id = ", " AND ", "status IN (",
        ")", "é — ünïcode ✓", "",
    ]

    /// One piece of a generated statement: a literal, run-time text, a placeholder or a list's.
    enum Piece: Sendable {
        case literal(Int)
        case text(String)
        case placeholder
        case listedPlaceholder
    }

    static let pieces = Gen.oneOf(
        Gen.int(in: 0...(literals.count - 1)).map { Piece.literal($0) },
        Gen<Character>.character(in: " "..."\u{2FF}").string(of: 0...40).map { Piece.text($0) },
        Gen.always(Piece.placeholder),
        Gen.always(Piece.listedPlaceholder)
    )

    @Test func theBytesAreTheTextTheStringAppendsWouldHaveMade() async {
        await propertyCheck(input: Self.pieces.array(of: 0...40)) { pieces in
            var text = SQLText()
            var expected = ""
            for piece in pieces {
                switch piece {
                case .literal(let index):
                    text.append(Self.literals[index])
                    expected += Self.literals[index].description
                case .text(let string):
                    text.append(string)
                    expected += string
                case .placeholder:
                    text.appendPlaceholder()
                    expected += "?"
                case .listedPlaceholder:
                    text.appendListedPlaceholder()
                    expected += ", ?"
                }
            }
            #expect(text.string == expected)
            #expect(text == SQLText(expected))
            #expect(text.hashValue == SQLText(expected).hashValue)
        }
    }

    @Test func aStatementBuiltFromPiecesIsTheSameCacheKeyAsItsWholeText() {
        let status = "scheduled"
        let built: SQLiteQuery = "SELECT id FROM schedule_steps WHERE \(unescaped: "status") = \(status)"
        let whole: SQLiteQuery = "SELECT id FROM schedule_steps WHERE status = ?"
        #expect(built.text == whole.text)
        #expect(built.text.hashValue == whole.text.hashValue)
        #expect(built.sql == "SELECT id FROM schedule_steps WHERE status = ?")
        let other: SQLiteQuery = "SELECT id FROM schedule_steps WHERE status <> ?"
        #expect(built.text != other.text)
        let longer: SQLiteQuery = "SELECT id FROM schedule_steps WHERE status = ? "
        #expect(built.text != longer.text)
    }

    @Test func aCopyExtendedApartFromItsOriginalLeavesTheOriginalAsItWas() {
        let base: SQLiteQuery = "UPDATE schedules SET status = \("paused") WHERE id = \("sch_1")"
        var first = base
        var second = base
        first += " AND status = \("active")"
        second.and("past_due") { status in "status = \(status)" }
        #expect(base.sql == "UPDATE schedules SET status = ? WHERE id = ?")
        #expect(first.sql == "UPDATE schedules SET status = ? WHERE id = ? AND status = ?")
        #expect(second.sql == "UPDATE schedules SET status = ? WHERE id = ? AND status = ?")
        #expect(first.arguments == [.text("paused"), .text("sch_1"), .text("active")])
        #expect(second.arguments == [.text("paused"), .text("sch_1"), .text("past_due")])

        var grown = base
        for index in 0..<200 { grown += " OR id = \(index)" }
        #expect(base.sql == "UPDATE schedules SET status = ? WHERE id = ?")
        #expect(grown.sql.hasPrefix(base.sql) && grown.arguments.count == 202)
        var doubled = grown
        doubled.append(grown)
        #expect(doubled.sql == grown.sql + grown.sql)
    }
}
