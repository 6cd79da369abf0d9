import Foundation
import HallmarkCrypto
import HallmarkPostgres
import HallmarkRuntime
import Logging
import Testing

@testable import AuthorityCore

/// Retention against the real PostgreSQL: the maintenance pass deletes replay records past
/// their window and validation counts older than 25 hours, and keeps the rest (docs/privacy.md,
/// the authority's inventory). Rows are aged by writing their times in the past.
@Suite("Authority retention", .timeLimit(.minutes(2)))
struct AuthorityRetentionTests {
    @Test func agedReplayRecordsAndCountsGo() async throws {
        let logger = Logger(label: "retention-test")
        let pool = PostgresPool(configuration: try PostgresConfiguration.fromEnvironment(), logger: logger)
        defer { pool.close() }
        var configuration = AuthorityConfiguration()
        configuration.schema = "authority_ret_\(String(UUID().uuidString.prefix(8)).lowercased())"
        let schema = configuration.schema
        try await StageDatabase(pool: pool, schema: schema).migrate(AuthorityMigrations.all(schema: schema), logger: logger)
        for (offset, n) in [("-1 second", 2), ("-1 day", 1), ("+1 hour", 3)] {
            for _ in 0..<n {
                try await pool.execute(
                    """
                    INSERT INTO \(unescaped: schema).seen_tokens (token_hash, message_id, expires_at)
                    VALUES (\(Data(try SecureRandom.bytes(32))), \(UUID()), now() + \(offset)::interval)
                    """)
            }
        }
        for (device, age) in [(1, "26 hours"), (1, "2 hours"), (2, "0 hours"), (3, "30 days")] {
            try await pool.execute(
                """
                INSERT INTO \(unescaped: schema).validation_counts (device_id, hour, count)
                VALUES (\(Int64(device)), date_trunc('hour', now() - \(age)::interval), 4)
                """)
        }
        let secrets = try AuthoritySecrets.parse(try AuthoritySecrets.generateText(), source: "test")
        let maintenance = AuthorityMaintenance(
            pool: pool, configuration: configuration, secrets: secrets,
            metrics: AuthorityMetrics(), logger: logger)
        let swept = try await maintenance.cleanUp()
        #expect(swept.tokens == 3 && swept.counts == 2)
        let left = try await pool.query(
            """
            SELECT (SELECT count(*) FROM \(unescaped: schema).seen_tokens WHERE expires_at > now())::bigint,
                   (SELECT count(*) FROM \(unescaped: schema).seen_tokens)::bigint,
                   (SELECT count(*) FROM \(unescaped: schema).validation_counts)::bigint
            """)[0].decode((Int64, Int64, Int64).self)
        #expect(left == (3, 3, 2))
        #expect(try await maintenance.cleanUp() == (0, 0))
        try await pool.execute("DROP SCHEMA \(unescaped: schema) CASCADE")
    }
}
