import Foundation
import HallmarkPostgres
import HallmarkTestSupport
import Logging
import Testing

@testable import HallmarkRuntime

/// Against the real PostgreSQL: a table that outgrows its statistics (never analyzed, or grown
/// past twice the rows it held then) is analyzed, and a smaller one is left to autovacuum.
@Suite(.timeLimit(.minutes(3)))
struct TableStatisticsTests {
    @Test func aTableIsAnalyzedOnlyOnceItOutgrowsItsStatistics() async throws {
        let logger = Logger(label: "statistics-test")
        let pool = PostgresPool(configuration: try .fromEnvironment(), logger: logger)
        defer { pool.close() }
        let schema = "stats_\(UUID().uuidString.prefix(8).lowercased())"
        let database = StageDatabase(pool: pool, schema: schema)
        try await database.migrate([], logger: logger)
        // Without autovacuum for the table, which would otherwise analyze it first now and then.
        try await pool.execute(
            """
            CREATE TABLE \(unescaped: schema).items (id int8 PRIMARY KEY, key bytea NOT NULL)
            WITH (autovacuum_enabled = false)
            """)
        let statistics = TableStatistics(database: database, interval: .seconds(5), logger: logger)
        var next = 0
        func insert(_ n: Int) async throws {
            try await pool.execute(
                """
                INSERT INTO \(unescaped: schema).items
                SELECT i, sha256(i::text::bytea) FROM generate_series(\(Int64(next)), \(Int64(next + n - 1))) i
                """)
            next += n
        }
        func reltuples() async throws -> Double {
            try await pool.query(
                """
                SELECT c.reltuples::float8 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = \(schema) AND c.relname = 'items'
                """
            ).decode(Double.self).first ?? -2
        }
        // Never analyzed (reltuples -1), 5,000 rows: analyzed once the counts reach the
        // statistics views (a backend reports them within about ten seconds).
        try await insert(5_000)
        let first = try await eventually { () async throws -> [String]? in
            let analyzed = try await statistics.analyzeLagging()
            return analyzed.isEmpty ? nil : analyzed
        }
        #expect(first == ["items"])
        #expect(try await reltuples() == 5_000)
        #expect(try await statistics.analyzeLagging() == [], "analyzed again with nothing changed")
        // Halfway to twice its size and every row updated: left alone.
        try await insert(2_500)
        try await pool.execute("UPDATE \(unescaped: schema).items SET key = sha256(key)")
        let counted = try await eventually { () async throws -> Bool in
            let rows: Int64? = try await pool.query(
                """
                SELECT n_live_tup FROM pg_stat_user_tables WHERE schemaname = \(schema) AND relname = 'items'
                """
            ).decode(Int64.self).first
            return rows == 7_500
        }
        #expect(counted)
        #expect(try await statistics.analyzeLagging() == [], "analyzed before it doubled")
        // 11,000 rows against the 5,000 it held: analyzed again.
        try await insert(3_500)
        let second = try await eventually { () async throws -> [String]? in
            let analyzed = try await statistics.analyzeLagging()
            return analyzed.isEmpty ? nil : analyzed
        }
        #expect(second == ["items"])
        #expect(try await reltuples() == 11_000)
        try await pool.execute("DROP SCHEMA \(unescaped: schema) CASCADE")
    }

    @Test func aTableOfFewerRowsThanTheSmallestIsLeftToAutovacuum() async throws {
        let logger = Logger(label: "statistics-test")
        let pool = PostgresPool(configuration: try .fromEnvironment(), logger: logger)
        defer { pool.close() }
        let schema = "stats_\(UUID().uuidString.prefix(8).lowercased())"
        let database = StageDatabase(pool: pool, schema: schema)
        try await database.migrate([], logger: logger)
        try await pool.execute(
            "CREATE TABLE \(unescaped: schema).items (id int8 PRIMARY KEY) WITH (autovacuum_enabled = false)")
        let n = Int64(TableStatistics.smallest - 1)
        try await pool.execute("INSERT INTO \(unescaped: schema).items SELECT generate_series(1, \(n))")
        // Wait until the statistics views count the inserts, then ask.
        let counted = try await eventually {
            try await pool.query(
                """
                SELECT n_live_tup FROM pg_stat_user_tables WHERE schemaname = \(schema) AND relname = 'items'
                """
            ).decode(Int64.self).first == n
        }
        #expect(counted)
        #expect(try await TableStatistics(database: database, interval: .seconds(5), logger: logger).analyzeLagging() == [])
        try await pool.execute("DROP SCHEMA \(unescaped: schema) CASCADE")
    }
}
