import Foundation
import HallmarkPostgres
import Logging
import Testing

@testable import HallmarkRuntime

/// Against the real PostgreSQL: the sweeper removes expired inbox entries and keeps the rest.
@Suite(.timeLimit(.minutes(5)))
struct InboxSweeperTests {
    @Test func sweepRemovesOnlyEntriesOlderThanTheRetention() async throws {
        let pool = PostgresPool(configuration: try .fromEnvironment(), logger: Logger(label: "sweeper-test"))
        defer { pool.close() }
        let schema = "sweep_\(UUID().uuidString.prefix(8).lowercased())"
        let database = StageDatabase(pool: pool, schema: schema)
        try await database.migrate([], logger: Logger(label: "sweeper-test"))
        let old = UUID(), fresh = UUID()
        try await pool.execute("""
            INSERT INTO \(unescaped: schema).hallmark_inbox (message_id, source_topic, processed_at)
            VALUES (\(old), 't', now() - interval '3 hours'), (\(fresh), 't', now() - interval '1 hour')
            """)
        let sweeper = InboxSweeper(database: database, retention: .seconds(2 * 3600), logger: Logger(label: "sweeper-test"))
        #expect(try await sweeper.sweep() == 1)
        let left = try await pool.query("SELECT message_id FROM \(unescaped: schema).hallmark_inbox")
        #expect(try left.map { try $0.column(0, as: UUID.self) } == [fresh])
        try await pool.execute("DROP SCHEMA \(unescaped: schema) CASCADE")
    }
}
