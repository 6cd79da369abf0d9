import AuthorityCore
import Foundation
import HallmarkPostgres
import HallmarkRuntime
import HallmarkTestSupport
import Logging
import Testing

/// The validation counter against the real PostgreSQL.
@Suite("Validation counter", .serialized, .timeLimit(.minutes(5)))
struct ValidationCounterTests {
    /// After a database outage tens of thousands of devices can be pending at once: one flush
    /// still writes them all (one bind parameter per device would pass PostgreSQL's 65,535).
    @Test func aFlushOfFiftyThousandPendingDevicesSucceeds() async throws {
        let (pool, schema, counter) = try await Self.counter()
        defer { pool.close() }
        let devices = Int64(1)...Int64(50_000)
        for id in devices { _ = counter.record(id) }
        for id in devices where id % 7 == 0 { _ = counter.record(id) }
        try await counter.flush()

        let rows = try await pool.query(
            """
            SELECT count(*)::bigint, sum(count)::bigint FROM \(unescaped: schema).validation_counts
            """
        ).decode((Int64, Int64).self)
        let sevens: Int64 = 50_000 / 7
        #expect(rows.first?.0 == 50_000)
        #expect(rows.first?.1 == 50_000 + sevens)
        // The totals came back: a device's next count includes what was flushed.
        #expect(counter.record(7) == 3)
        #expect(counter.record(8) == 2)
        // A second flush adds to the same hour's rows.
        try await counter.flush()
        let seven = try await pool.query(
            """
            SELECT sum(count)::bigint FROM \(unescaped: schema).validation_counts WHERE device_id = 7
            """
        ).decode(Int64.self)
        #expect(seven.first == 3)
        _ = try await pool.execute("DROP SCHEMA IF EXISTS \(unescaped: schema) CASCADE")
    }

    /// A validation made while a flush is writing still counts the validations being flushed:
    /// a device's count never dips below its validations (it did by the flush's batch, and a
    /// camera at the blacklist threshold got one more valid answer).
    @Test func aValidationDuringAFlushCountsTheOnesBeingFlushed() async throws {
        let (pool, schema, counter) = try await Self.counter()
        defer { pool.close() }
        for _ in 0..<3 { _ = counter.record(1) }

        // Another session holds the table, so the flush waits inside its INSERT, batch taken.
        let (released, release) = AsyncStream<Void>.makeStream()
        let holder = Task {
            try await pool.transaction { connection in
                try await connection.execute("LOCK TABLE \(unescaped: schema).validation_counts IN EXCLUSIVE MODE")
                for await _ in released { break }
            }
        }
        let table = "\(schema).validation_counts"
        try await pool.waitForLock(on: table, granted: true)
        let flush = Task { try await counter.flush() }
        try await pool.waitForLock(on: table, granted: false)
        #expect(counter.current(1) == 3)
        #expect(counter.record(1) == 4)
        release.yield()
        try await holder.value
        try await flush.value
        #expect(counter.current(1) == 4)
        try await counter.flush()
        #expect(counter.record(1) == 5)
        _ = try await pool.execute("DROP SCHEMA IF EXISTS \(unescaped: schema) CASCADE")
    }

    /// A counter over a fresh schema (flushed only when the test says).
    static func counter() async throws -> (PostgresPool, String, ValidationCounter) {
        var logger = Logger(label: "counter-test")
        logger.logLevel = .warning
        let pool = PostgresPool(configuration: try PostgresConfiguration.fromEnvironment(), logger: logger)
        let schema = "counter_\(String(UUID().uuidString.prefix(8)).lowercased())"
        try await StageDatabase(pool: pool, schema: schema).migrate(AuthorityMigrations.all(schema: schema), logger: logger)
        return (pool, schema, ValidationCounter(pool: pool, schema: schema, interval: .seconds(3600), logger: logger))
    }
}
