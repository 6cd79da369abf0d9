import Foundation
import HallmarkPostgres
import Testing

@Suite("Typed decoding errors", .timeLimit(.minutes(2)))
struct DecodingErrorTests {
    private func failure(_ body: () throws -> Void) -> PostgresError? {
        do {
            try body()
            return nil
        } catch {
            return error as? PostgresError
        }
    }

    @Test func decodingErrorsAreTypedAndNameTheColumn() async throws {
        try await TestDatabase.withSchema { pool, _ in
            let row = try #require(
                try await pool.query(
                    """
                    SELECT 'secret-value'::text AS word, 100000::int4 AS big, NULL::text AS nothing,
                           12345678901234567890::numeric AS huge, 'xyz'::bytea AS blob
                    """
                ).first)

            let mismatch = try #require(failure { _ = try row.column("word", as: Int.self) })
            #expect(mismatch.code == .decoding)
            #expect(mismatch.column == "word")
            #expect(mismatch.decodingFailure == .typeMismatch(swiftType: "Int", columnType: .text))

            let overflow = try #require(failure { _ = try row.column("big", as: Int16.self) })
            #expect(overflow.decodingFailure == .invalidValue(swiftType: "Int16", columnType: .int4))

            let null = try #require(failure { _ = try row.column("nothing", as: String.self) })
            #expect(null.decodingFailure == .unexpectedNull)
            #expect(null.column == "nothing")
            #expect(try row.column("nothing", as: String?.self) == nil)

            let huge = try #require(failure { _ = try row.column("huge", as: Int64.self) })
            #expect(huge.decodingFailure == .invalidValue(swiftType: "Int64", columnType: .numeric))
            #expect(!huge.description.contains("1234567890"))

            let bytesAsUUID = try #require(failure { _ = try row.column("blob", as: UUID.self) })
            #expect(bytesAsUUID.decodingFailure == .typeMismatch(swiftType: "UUID", columnType: .bytea))

            let missing = try #require(failure { _ = try row.column("nope", as: String.self) })
            #expect(missing.decodingFailure == .columnNotFound("nope"))

            let range = try #require(failure { _ = try row.column(9, as: String.self) })
            #expect(range.decodingFailure == .columnIndexOutOfRange(9, columnCount: 5))

            let arity = try #require(failure { _ = try row.decode((String, Int32).self) })
            #expect(arity.decodingFailure == .columnCountMismatch(expected: 2, actual: 5))

            // Descriptions never carry the value.
            for error in [mismatch, overflow, null, huge, bytesAsUUID] {
                #expect(!error.description.contains("secret-value"))
            }
        }
    }

    @Test func stringsDecodeFromAnyColumnType() async throws {
        try await TestDatabase.withSchema { pool, _ in
            let row = try #require(try await pool.query("SELECT 1.50::numeric, true, '{\"a\":1}'::jsonb").first)
            #expect(try row.decode((String, String, String).self) == ("1.50", "t", "{\"a\": 1}"))
            #expect(try row.column(0, as: Double.self) == 1.5)
        }
    }

    @Test func wholeResultDecodes() async throws {
        try await TestDatabase.withSchema { pool, _ in
            let rows = try await pool.query("SELECT n, 'row ' || n FROM generate_series(1, 3) AS n")
            #expect(rows.columns.map(\.dataType) == [.int4, .text])
            let decoded = try rows.decode((Int32, String).self)
            #expect(decoded.map(\.0) == [1, 2, 3])
            #expect(decoded.map(\.1) == ["row 1", "row 2", "row 3"])
            #expect(rows.commandTag == "SELECT 3")
            #expect(rows.affectedRows == 3)
        }
    }

    @Test func rowsWithoutColumnsAreStillCounted() async throws {
        try await TestDatabase.withSchema { pool, _ in
            let rows = try await pool.query("SELECT FROM generate_series(1, 3)")
            #expect(rows.count == 3)
            #expect(rows.columns.isEmpty)
        }
    }
}
