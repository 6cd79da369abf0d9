import Foundation
import HallmarkPostgres
import Logging
import Testing

@testable import HallmarkRuntime

/// Against the real PostgreSQL: the sweeper removes expired inbox entries and forgets expired
/// answers, and keeps the rest.
@Suite(.timeLimit(.minutes(5)))
struct InboxSweeperTests {
    @Test func sweepRemovesOnlyEntriesOlderThanTheRetention() async throws {
        let pool = PostgresPool(configuration: try .fromEnvironment(), logger: Logger(label: "sweeper-test"))
        defer { pool.close() }
        let schema = "sweep_\(UUID().uuidString.prefix(8).lowercased())"
        let database = StageDatabase(pool: pool, schema: schema)
        try await database.migrate([], logger: Logger(label: "sweeper-test"))
        let old = UUID(), fresh = UUID(), recent = UUID()
        let answer = Data([1, 2, 3])
        try await pool.execute(
            """
            INSERT INTO \(unescaped: schema).hallmark_inbox (message_id, source_topic, processed_at, outputs)
            VALUES (\(old), 't', now() - interval '3 hours', \(answer)), (\(fresh), 't', now() - interval '1 hour', \(answer)),
                   (\(recent), 't', now() - interval '10 minutes', \(answer))
            """)
        // Entries go after two hours; their answers after half an hour.
        let sweeper = InboxSweeper(
            database: database, retention: .seconds(2 * 3600), answerRetention: .seconds(1800),
            logger: Logger(label: "sweeper-test"))
        #expect(try await sweeper.sweep() == 1)
        let left = try await pool.query(
            """
            SELECT message_id, outputs FROM \(unescaped: schema).hallmark_inbox ORDER BY processed_at
            """
        ).decode((UUID, Data?).self)
        #expect(left.map(\.0) == [fresh, recent])
        #expect(left.map(\.1) == [nil, answer], "an answer past its retention was kept, or a recent one forgotten")
        try await pool.execute("DROP SCHEMA \(unescaped: schema) CASCADE")
    }
}
