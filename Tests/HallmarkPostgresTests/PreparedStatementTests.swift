import HallmarkPostgres
import Testing

/// A statement run again on a connection is prepared there, and stays correct when what it
/// reads changes under it.
@Suite("Prepared statements", .timeLimit(.minutes(2)))
struct PreparedStatementTests {
    @Test func aRepeatedStatementIsPreparedOnceAndGivesTheSameAnswers() async throws {
        try await TestDatabase.withSchema { pool, schema in
            try await pool.withConnection { connection in
                let before = try await connection.query(
                    "SELECT count(*)::bigint FROM pg_prepared_statements WHERE name LIKE 'hallmark\\_%'"
                ).decode(Int64.self)
                for n in 0..<5 {
                    let rows = try await connection.query("SELECT \(Int64(n))::bigint + 1, \("text \(n)")::text")
                    #expect(try rows.decode((Int64, String).self).first! == (Int64(n) + 1, "text \(n)"))
                }
                let prepared = try await connection.query(
                    """
                    SELECT statement FROM pg_prepared_statements WHERE name LIKE 'hallmark\\_%'
                    """
                ).decode(String.self)
                #expect(prepared.count == Int(before[0]) + 1)
                #expect(prepared.contains { $0.contains("::bigint + 1") })
            }
        }
    }

    /// A statement planned at each run is never prepared, however often it runs, and gives the
    /// same answers; the same text run plainly is prepared on its second run.
    @Test func aStatementPlannedEachRunIsNeverPrepared() async throws {
        try await TestDatabase.withSchema { pool, schema in
            try await pool.withConnection { connection in
                func prepared() async throws -> [String] {
                    try await connection.query("SELECT statement FROM pg_prepared_statements").decode(String.self)
                }
                for n in 0..<5 {
                    let query: PostgresQuery = "SELECT \(Int64(n))::bigint * 3, 'each run'::text"
                    let rows = try await connection.query(query.plannedEachRun())
                    #expect(try rows.decode((Int64, String).self).first! == (Int64(n) * 3, "each run"))
                }
                #expect(!(try await prepared()).contains { $0.contains("'each run'") })
                for n in 0..<2 {
                    let rows = try await connection.query("SELECT \(Int64(n))::bigint * 3, 'each run'::text")
                    #expect(try rows.decode((Int64, String).self).first! == (Int64(n) * 3, "each run"))
                }
                #expect((try await prepared()).contains { $0.contains("'each run'") })
            }
        }
    }

    @Test func aTableChangedUnderAPreparedStatementIsReadAfresh() async throws {
        try await TestDatabase.withSchema { pool, schema in
            try await pool.withConnection { connection in
                try await connection.execute("CREATE TABLE \(unescaped: schema).t (a int)")
                try await connection.execute("INSERT INTO \(unescaped: schema).t VALUES (1)")
                for _ in 0..<3 {
                    #expect(try await connection.query("SELECT * FROM \(unescaped: schema).t").columns.count == 1)
                }
                try await connection.execute("ALTER TABLE \(unescaped: schema).t ADD COLUMN b int DEFAULT 2")
                // PostgreSQL refuses a cached plan whose result type changed (0A000) once; the
                // statement is then prepared afresh.
                var columns = 0
                for _ in 0..<2 where columns == 0 {
                    columns = (try? await connection.query("SELECT * FROM \(unescaped: schema).t").columns.count) ?? 0
                }
                #expect(columns == 2)
                #expect(try await connection.query("SELECT * FROM \(unescaped: schema).t").columns.count == 2)
            }
        }
    }
}
