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
    /// A schema of its own with one table, `items`, without autovacuum (which would otherwise
    /// analyze it first now and then).
    final class Fixture: Sendable {
        let pool: PostgresPool
        let schema = "stats_\(UUID().uuidString.prefix(8).lowercased())"
        let statistics: TableStatistics

        init() async throws {
            let logger = Logger(label: "statistics-test")
            pool = PostgresPool(configuration: try .fromEnvironment(), logger: logger)
            let database = StageDatabase(pool: pool, schema: schema)
            statistics = TableStatistics(database: database, interval: .seconds(5), logger: logger)
            try await database.migrate([], logger: logger)
            try await pool.execute(
                """
                CREATE TABLE \(unescaped: schema).items (id int8 PRIMARY KEY, key bytea NOT NULL)
                WITH (autovacuum_enabled = false)
                """)
        }

        /// Rows `from` up to `through`.
        func insert(_ from: Int, through: Int) async throws {
            try await pool.execute(
                """
                INSERT INTO \(unescaped: schema).items
                SELECT i, sha256(i::text::bytea) FROM generate_series(\(Int64(from)), \(Int64(through))) i
                """)
        }

        /// Whether the statistics views count `rows` live rows within the wait (a backend
        /// reports its counts within about ten seconds).
        func counted(_ rows: Int64) async throws -> Bool {
            try await eventually { () async throws -> Bool in
                let live: Int64? = try await pool.query(
                    """
                    SELECT n_live_tup FROM pg_stat_user_tables WHERE schemaname = \(schema) AND relname = 'items'
                    """
                ).decode(Int64.self).first
                return live == rows
            }
        }

        /// The tables analyzed by the first call that analyzes any; nil if none did in time.
        func analyzedOnceCounted() async throws -> [String]? {
            try await eventually { () async throws -> [String]? in
                let analyzed = try await statistics.analyzeLagging()
                return analyzed.isEmpty ? nil : analyzed
            }
        }

        func reltuples() async throws -> Double {
            try await pool.query(
                """
                SELECT c.reltuples::float8 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = \(schema) AND c.relname = 'items'
                """
            ).decode(Double.self).first ?? -2
        }

        func close() async throws {
            try await pool.execute("DROP SCHEMA \(unescaped: schema) CASCADE")
            pool.close()
        }
    }

    @Test func aTableIsAnalyzedOnlyOnceItOutgrowsItsStatistics() async throws {
        let f = try await Fixture()
        // Never analyzed (reltuples -1), 5,000 rows: analyzed once the counts are reported.
        try await f.insert(1, through: 5_000)
        #expect(try await f.analyzedOnceCounted() == ["items"])
        #expect(try await f.reltuples() == 5_000)
        #expect(try await f.statistics.analyzeLagging() == [], "analyzed again with nothing changed")
        // Halfway to twice its size and every row updated: left alone.
        try await f.insert(5_001, through: 7_500)
        try await f.pool.execute("UPDATE \(unescaped: f.schema).items SET key = sha256(key)")
        #expect(try await f.counted(7_500))
        #expect(try await f.statistics.analyzeLagging() == [], "analyzed before it doubled")
        // 11,000 rows against the 5,000 it held: analyzed again.
        try await f.insert(7_501, through: 11_000)
        #expect(try await f.analyzedOnceCounted() == ["items"])
        #expect(try await f.reltuples() == 11_000)
        try await f.close()
    }

    @Test func aTableOfFewerRowsThanTheSmallestIsLeftToAutovacuum() async throws {
        let f = try await Fixture()
        try await f.insert(1, through: TableStatistics.smallest - 1)
        // Once the statistics views count the rows, it is still too small.
        #expect(try await f.counted(Int64(TableStatistics.smallest - 1)))
        #expect(try await f.statistics.analyzeLagging() == [])
        try await f.close()
    }
}
