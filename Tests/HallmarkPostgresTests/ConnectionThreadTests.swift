import HallmarkPostgres
import Testing

/// A transaction's body runs on its connection's own thread (``ConnectionThread``), where its
/// statements call libpq without hopping to another thread, and behaves as it did on the queue.
@Suite("Connection thread", .timeLimit(.minutes(3)))
struct ConnectionThreadTests {
    @Test func aTransactionsBodyRunsOnItsConnectionsThreadAndNothingElseDoes() async throws {
        try await TestDatabase.withSchema(poolSize: 1) { pool, schema in
            try await pool.execute("CREATE TABLE \(unescaped: schema).marks (n int)")
            let inside = try await pool.transaction { connection in
                try await connection.execute("INSERT INTO \(unescaped: schema).marks VALUES (\(1))")
                return connection.isOnItsThread
            }
            #expect(inside)
            let outside = try await pool.withConnection { connection in
                try await connection.execute("INSERT INTO \(unescaped: schema).marks VALUES (\(2))")
                return connection.isOnItsThread
            }
            #expect(!outside)
            #expect(try await pool.query("SELECT count(*) FROM \(unescaped: schema).marks").first!.column(0, as: Int.self) == 2)
        }
    }

    /// More transactions than connections, each awaiting others' work in its body: no thread is
    /// held while its transaction waits.
    @Test func concurrentTransactionsOnFewConnectionsAllCommit() async throws {
        try await TestDatabase.withSchema(poolSize: 2) { pool, schema in
            try await pool.execute("CREATE TABLE \(unescaped: schema).marks (n int)")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 0..<40 {
                    group.addTask {
                        try await pool.transaction { connection in
                            try await connection.execute("INSERT INTO \(unescaped: schema).marks VALUES (\(n))")
                            await Task.yield()
                            try await connection.execute("INSERT INTO \(unescaped: schema).marks VALUES (\(n + 100))")
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await pool.query("SELECT count(*) FROM \(unescaped: schema).marks").first!.column(0, as: Int.self) == 80)
        }
    }

    @Test func cancellingATransactionCancelsItsRunningStatement() async throws {
        try await TestDatabase.withSchema(poolSize: 2, cancelling: true) { pool, _ in
            let started = ContinuousClock.now
            let slow = Task { try await pool.transaction { try await $0.query("SELECT pg_sleep(28)") } }
            try await TestDatabase.waitUntil {
                try await pool.query(
                    "SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(28)' AND state = 'active'"
                ).first!.column(0, as: Int.self) == 1
            }
            slow.cancel()
            await #expect { try await slow.value } throws: { ($0 as? PostgresError)?.isQueryCanceled == true }
            #expect(ContinuousClock.now - started < .seconds(10))
            // ROLLBACK ran on the thread too: the connection is reused.
            #expect(try await pool.query("SELECT 1").count == 1)
            #expect(pool.statistics.open <= 2)
        }
    }
}
