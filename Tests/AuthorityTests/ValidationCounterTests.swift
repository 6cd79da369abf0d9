import AuthorityCore
import Foundation
import HallmarkPostgres
import HallmarkRuntime
import Logging
import Testing

/// The validation counter against the real PostgreSQL.
@Suite("Validation counter", .serialized, .timeLimit(.minutes(5)))
struct ValidationCounterTests {
    /// After a database outage tens of thousands of devices can be pending at once: one flush
    /// still writes them all (one bind parameter per device would pass PostgreSQL's 65,535).
    @Test func aFlushOfFiftyThousandPendingDevicesSucceeds() async throws {
        var logger = Logger(label: "counter-test")
        logger.logLevel = .warning
        let pool = PostgresPool(configuration: try PostgresConfiguration.fromEnvironment(), logger: logger)
        let schema = "counter_\(String(UUID().uuidString.prefix(8)).lowercased())"
        defer { pool.close() }
        try await StageDatabase(pool: pool, schema: schema).migrate(AuthorityMigrations.all(schema: schema), logger: logger)
        let counter = ValidationCounter(pool: pool, schema: schema, interval: .seconds(3600), logger: logger)
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
}
