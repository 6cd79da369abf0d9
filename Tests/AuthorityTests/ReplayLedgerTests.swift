import AuthorityCore
import Foundation
import HallmarkPostgres
import HallmarkRuntime
import Logging
import Testing

/// The replay ledger's outcomes against the real PostgreSQL, among many live records (the
/// statement probes each key; it once read every live record of the window per batch).
@Suite("Replay ledger", .serialized, .timeLimit(.minutes(5)))
struct ReplayLedgerTests {
    @Test func freshRedeliveredAndReplayedAmongManyLiveRecords() async throws {
        var logger = Logger(label: "replay-ledger-test")
        logger.logLevel = .warning
        let pool = PostgresPool(configuration: try PostgresConfiguration.fromEnvironment(), logger: logger)
        let schema = "replay_\(String(UUID().uuidString.prefix(8)).lowercased())"
        defer { pool.close() }
        try await StageDatabase(pool: pool, schema: schema).migrate(AuthorityMigrations.all(schema: schema), logger: logger)
        let ledger = ReplayLedger(pool: pool, schema: schema, windowSeconds: 3600)
        func key(_ n: Int) -> ReplayLedger.Key {
            ReplayLedger.Key(Data((0..<32).map { UInt8(truncatingIfNeeded: n >> (8 * ($0 % 4))) ^ UInt8($0) }))!
        }
        func claim(_ n: Int, _ id: UUID) -> ReplayLedger.Claim { .init(key: key(n), messageID: id) }

        // 20,000 live records, claimed in batches of 1,000 like the stage's.
        let ids = (0..<20_000).map { _ in UUID() }
        for start in stride(from: 0, to: ids.count, by: 1000) {
            let outcomes = try await ledger.claim((start..<start + 1000).map { claim($0, ids[$0]) })
            #expect(outcomes.allSatisfy { $0 == .fresh })
        }
        // The same messages again are redeliveries; other messages with those keys are replays;
        // new keys are fresh; within a batch the first claim of a key decides.
        let other = UUID(), twice = (UUID(), UUID())
        let outcomes = try await ledger.claim([
            claim(7, ids[7]), claim(19_999, ids[19_999]), claim(8, other),
            claim(30_000, UUID()), claim(30_001, twice.0), claim(30_001, twice.1),
        ])
        #expect(outcomes == [.redelivered, .redelivered, .replayed, .fresh, .fresh, .replayed])
        // One message sent several times into a batch is one validation: its copies are
        // redeliveries, not fresh claims counted again.
        let copies = UUID()
        #expect(
            try await ledger.claim([
                claim(30_002, copies), claim(30_002, copies), claim(30_003, UUID()),
                claim(30_002, copies),
            ]) == [.fresh, .redelivered, .fresh, .redelivered])
        // The keys still belong to their first messages.
        #expect(try await ledger.claim([claim(8, ids[8]), claim(30_001, twice.0)]) == [.redelivered, .redelivered])

        // An expired record is free for another message.
        let brief = ReplayLedger(pool: pool, schema: schema, windowSeconds: 0)
        #expect(try await brief.claim([claim(40_000, UUID())]) == [.fresh])
        #expect(try await brief.claim([claim(40_000, UUID())]) == [.fresh])
        _ = try await pool.execute("DROP SCHEMA IF EXISTS \(unescaped: schema) CASCADE")
    }
}
