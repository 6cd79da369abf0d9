import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime
import HallmarkTestSupport
import Logging
import Testing
@testable import AggregatorCore

/// What the aggregator keeps and for how long: answered submissions are swept after their
/// retention (nothing in progress ever is), and a new checkpoint key goes into its audit trail.
@Suite("Aggregator retention and key records", .serialized, .timeLimit(.minutes(4)))
struct AggregatorRetentionTests {
    /// Rows aged by writing their times in the past: only answered ones older than the
    /// retention go, in chunks; validating and queued ones stay however old.
    @Test func theSweeperDeletesOnlyAgedAnswers() async throws {
        let (pool, schema) = try await TransparencyLogTests.schema()
        func insert(_ count: Int, status: String, hoursAgo: Int) async throws -> [UUID] {
            let ids = (0..<count).map { _ in UUID() }
            try await pool.execute(
                """
                INSERT INTO \(unescaped: schema).submissions
                    (submission_id, status, entries, captured_at, correlation_id, reply_topic, result, queued_seq, created_at)
                SELECT i, \(status), '\\x5b5d'::bytea, 0, 'c', 't',
                       CASE WHEN \(status) = 'answered' THEN '\\x7b7d'::bytea END,
                       CASE WHEN \(status) = 'queued' THEN nextval('\(unescaped: schema).queued_seq') END,
                       now() - \(Double(hoursAgo * 3600)) * interval '1 second'
                FROM unnest(\(PostgresArray(ids))) AS i
                """)
            return ids
        }
        let aged = try await insert(2_500, status: SubmissionLedger.Status.answered.rawValue, hoursAgo: 200)
        let fresh = try await insert(10, status: SubmissionLedger.Status.answered.rawValue, hoursAgo: 100)
        let waiting =
            try await insert(5, status: "validating", hoursAgo: 300) + (try await insert(5, status: "queued", hoursAgo: 300))
        let table = SubmissionLedger(schema: schema)
        var swept: [Int] = []
        while true {
            let n = try await table.sweepAnswered(olderThan: .seconds(168 * 3600), limit: 1_000, on: pool)
            if n == 0 { break }
            swept.append(n)
        }
        #expect(swept == [1_000, 1_000, 500])
        let rows: [UUID] = try await pool.query("SELECT submission_id FROM \(unescaped: schema).submissions").decode(UUID.self)
        let left = Set(rows)
        #expect(left == Set(fresh + waiting) && left.isDisjoint(with: aged))
        await TransparencyLogTests.drop(pool, schema)
    }

    /// The aggregator started with one checkpoint key, then with another: its audit trail
    /// says so (by key id, the public key's SHA-256), publishes it, and checks.
    @Test func aNewCheckpointKeyIsRecorded() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let audit = h.aggregator.auditTopic
        let first = try await h.startAggregator("key-1")
        first.signal(SIGTERM)
        #expect(await first.waitForExit(timeout: .seconds(30)) == 0)
        let next = try CheckpointSigningKey.generate()
        let nextFile = FileManager.default.temporaryDirectory.appendingPathComponent("aggregator-\(h.id)-next.key").path
        try next.write(to: nextFile)
        defer { try? FileManager.default.removeItem(atPath: nextFile) }
        let second = try await h.startAggregator("key-2", ["HALLMARK_AGGREGATOR_SIGNING_KEY_FILE": nextFile])
        defer { second.signal(SIGKILL) }
        let (old, new) = (h.signingKey.keyID, next.keyID)
        let expected = [
            "\(old) key_added", "\(old) current_key_changed", "\(old) key_removed", "\(new) key_added",
            "\(new) current_key_changed",
        ]
        var trail: [String] = []
        let recorded = try await eventually {
            let rows = try await h.pool.query(
                """
                SELECT record FROM \(unescaped: h.aggregator.schema).hallmark_audit ORDER BY sequence
                """
            ).decode(Data.self)
            trail = try rows.map { try JSONCoding.decode(Message<AuditRecord>.self, from: Array($0)).body }
                .map { "\($0.keyID ?? "") \($0.reason ?? "")" }
            return trail.count >= expected.count
        }
        #expect(recorded && trail == expected, "\(trail)")
        #expect(try await AuditChainCheck.run(schema: h.aggregator.schema, pool: h.pool).problem == nil)
        let env = ["HALLMARK_AGGREGATOR_SCHEMA": h.aggregator.schema, "HALLMARK_AUDIT_TOPIC": audit]
        let verify = try ServiceProcess(
            "hallmark", arguments: ["audit", "verify", "--service", "aggregator"],
            name: "\(h.id)-audit", environment: env)
        #expect(await verify.waitForExit(timeout: .seconds(60)) == 0)
        #expect(verify.rawLog.contains("intact, 5 records") && verify.rawLog.contains("5 records match"), "\(verify.rawLog)")
    }
}
