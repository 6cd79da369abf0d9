import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import HallmarkPostgres
@testable import HallmarkRuntime
import HallmarkTestSupport
import Logging
import Testing

/// The ordered single writer, with its reference log (`hallmark probe-writer`): three replicas,
/// items arriving all along, and the leader SIGKILLed again and again. A standby must take over
/// within seconds, and the log must stay gap-free and duplicate-free with every item in it once;
/// checkpoints must never disagree about what a position holds.
@Suite("Ordered single writer", .serialized, .timeLimit(.minutes(8)))
struct OrderedWriterIntegrationTests {
    /// Fencing itself: once another leader has taken a newer epoch, the old lease's
    /// lock of the head row on its epoch fails and moves nothing.
    @Test func aStaleLeaseIsFenced() async throws {
        let h = try await StageHarness()
        let schema = "fence_\(h.id)"
        try await StageDatabase(pool: h.pool, schema: schema).migrate(
            OrderedWriter<NoLog>.migrations(schema: schema), logger: h.logger)
        let configuration = OrderedWriter<NoLog>.Configuration(name: "fence", schema: schema, service: "test")
        let lease = try #require(try await WriterLease.acquire(configuration, pool: h.pool, logger: h.logger))
        #expect(try await WriterLease.acquire(configuration, pool: h.pool, logger: h.logger) == nil, "two leases at once")
        let starts = try await h.pool.transaction { connection in
            let first = try await lease.head(on: connection)
            try await lease.advance(to: first + 3, on: connection)
            let second = try await lease.head(on: connection)
            try await lease.advance(to: second + 2, on: connection)
            return [first, second]
        }
        #expect(starts == [0, 3])
        _ = try await h.pool.execute("UPDATE \(unescaped: schema).hallmark_writer SET epoch = epoch + 1")
        await #expect(throws: WriterFenced.self) {
            try await h.pool.transaction { try await lease.head(on: $0) }
        }
        await #expect(throws: WriterFenced.self) {
            try await h.pool.transaction { try await lease.advance(to: 99, on: $0) }
        }
        #expect(
            try await h.pool.query("SELECT position FROM \(unescaped: schema).hallmark_writer")[0].column(0, as: Int64.self) == 5)
        _ = try await h.pool.execute("DROP SCHEMA \(unescaped: schema) CASCADE")
        await h.close()
    }

    /// A log seeded without a writer: the first leader's head is where it was placed, and the
    /// head cannot be placed again once there is one.
    @Test func theFirstLeaderTakesOverAtAPlacedHead() async throws {
        let h = try await StageHarness()
        let schema = "placed_\(h.id)"
        try await StageDatabase(pool: h.pool, schema: schema).migrate(
            OrderedWriter<NoLog>.migrations(schema: schema), logger: h.logger)
        try await OrderedWriter<NoLog>.placeHead(1_000, name: "seeded", schema: schema, pool: h.pool)
        let configuration = OrderedWriter<NoLog>.Configuration(name: "seeded", schema: schema, service: "test")
        let lease = try #require(try await WriterLease.acquire(configuration, pool: h.pool, logger: h.logger))
        #expect(lease.epoch == 1)
        let head = try await h.pool.transaction { try await lease.head(on: $0) }
        #expect(head == 1_000)
        await #expect(throws: (any Error).self) {
            try await OrderedWriter<NoLog>.placeHead(0, name: "seeded", schema: schema, pool: h.pool)
        }
        _ = try await h.pool.execute("DROP SCHEMA \(unescaped: schema) CASCADE")
        await h.close()
    }

    /// A log for tests that need only the writer's tables.
    struct NoLog: OrderedWriterLog {
        func waiting(limit: Int, on connection: PostgresConnection) async throws -> [Int] { [] }
        func append(_ items: [Int], at position: Int64, on connection: PostgresConnection) async throws -> OrderedWriterBatch {
            OrderedWriterBatch(appended: 0, outputs: [])
        }
    }

    @Test func sequenceStaysGapAndDuplicateFreeWhileLeadersAreKilled() async throws {
        let h = try await StageHarness()
        let schema = "writer_\(h.id)", output = "test.writer.\(h.id).checkpoints"
        try await KafkaAdmin(configuration: h.kafka, logger: h.logger).createTopics([output], partitions: 1)
        func start(_ name: String) throws -> ServiceProcess {
            try ServiceProcess(
                "hallmark", arguments: ["probe-writer"], name: "\(h.id)-\(name)",
                environment: [
                    "HALLMARK_PROBE_WRITER_SCHEMA": schema, "HALLMARK_PROBE_WRITER_OUTPUT": output,
                    "HALLMARK_PROBE_WRITER_BATCH": "200", "HALLMARK_PROBE_WRITER_LINGER_MS": "20",
                    "HALLMARK_INSTANCE": name, "HALLMARK_METRICS_TOPIC": h.metrics, "HALLMARK_LOG_LEVEL": "info",
                    "HALLMARK_METRICS_INTERVAL_MS": "1000",
                ])
        }
        var writers = try ["w0", "w1", "w2"].map { ($0, try start($0)) }
        try await h.wait("the writer's tables", timeout: .seconds(60)) {
            (try? await h.pool.query("SELECT 1 FROM \(unescaped: schema).writer_items LIMIT 1")) != nil
        }
        func logSize() async throws -> Int64 {
            try await h.pool.query("SELECT count(*)::bigint FROM \(unescaped: schema).writer_log")[0].column(0, as: Int64.self)
        }
        var inserted: Int64 = 0
        func insert(_ count: Int64) async throws {
            for chunk in stride(from: inserted, to: inserted + count, by: 250) {
                let ids = PostgresArray(Array(chunk..<min(chunk + 250, inserted + count)))
                try await h.pool.execute("INSERT INTO \(unescaped: schema).writer_items (item_id) SELECT unnest(\(ids))")
            }
            inserted += count
        }

        func epoch() async throws -> Int64 {
            try await h.pool.query("SELECT epoch FROM \(unescaped: schema).hallmark_writer")[0].column(0, as: Int64.self)
        }
        var takeovers: [Duration] = []
        for round in 0..<6 {
            // Kill the leader while it is busy with this round's items.
            let before = try await logSize()
            try await insert(10_000)
            try await h.wait("the leader appending", timeout: .seconds(60)) { try await logSize() > before }
            let leader = try await h.pool.query(
                """
                SELECT written_by FROM \(unescaped: schema).writer_log ORDER BY position DESC LIMIT 1
                """)[0].column(0, as: String.self)
            let lead = try await epoch()
            let index = writers.firstIndex { $0.0 == leader }!
            writers[index].1.signal(SIGKILL)
            let killed = ContinuousClock.now
            _ = await writers[index].1.waitForExit(timeout: .seconds(10))
            // A standby takes the lead (a new epoch) while the killed one restarts as a standby.
            writers[index] = (leader + "-r\(round)", try start(leader + "-r\(round)"))
            try await h.wait("a standby taking over", timeout: .seconds(30)) { try await epoch() > lead }
            takeovers.append(ContinuousClock.now - killed)
        }
        try await insert(2_000)
        try await h.wait("every item appended", timeout: .seconds(120)) { try await logSize() == inserted }
        try await h.wait("every batch's outputs sent", timeout: .seconds(60)) {
            try await h.pool.query("SELECT count(*)::bigint FROM \(unescaped: schema).hallmark_writer_outbox")[0]
                .column(0, as: Int64.self) == 0
        }

        let (count, low, high, distinct) = try await h.pool.query(
            """
            SELECT count(*)::bigint, min(position), max(position), count(DISTINCT item_id)::bigint
            FROM \(unescaped: schema).writer_log
            """)[0].decode((Int64, Int64, Int64, Int64).self)
        #expect(count == inserted && low == 0 && high == inserted - 1, "the log has a gap")
        #expect(distinct == inserted, "an item was appended twice")
        #expect(
            try await h.pool.query("SELECT count(*)::bigint FROM \(unescaped: schema).writer_items")[0]
                .column(0, as: Int64.self) == 0)
        #expect(takeovers.allSatisfy { $0 < .seconds(10) }, "takeovers took \(takeovers)")

        // The leader's metrics count its election (HallmarkWriterLeadershipFlapping reads it);
        // it never counts more elections than the epochs the lock table has seen.
        let epochs = try await epoch()
        let leaderSnapshot = try await h.read(h.metrics, timeout: .seconds(60)) { snapshots in
            snapshots.last.map { StageLoopIntegrationTests.values("hallmark_writer_leading", in: $0.value).first?.value == 1 }
                ?? false
        }.last!.value
        let elections = Self.counter("hallmark_writer_elections_total", in: leaderSnapshot)
        #expect(elections.map { $0 >= 1 && $0 <= Double(epochs) } == true, "elections \(String(describing: elections))")

        // Checkpoints: one size per batch start, never two; the last covers everything.
        let checkpoints = try await h.readAll(output).map { try JSONCoding.decode(Message<ProbeResult>.self, from: $0.value) }
        let sizes = Dictionary(grouping: checkpoints, by: \.correlationID).mapValues { Set($0.map(\.n)) }
        #expect(sizes.values.allSatisfy { $0.count == 1 }, "two checkpoints disagree about one batch")
        #expect(checkpoints.map(\.n).max() == Int(inserted))

        // A leader that lost its lock without dying (its session ended under it) is fenced or
        // steps down; it never writes again under its old epoch.
        let lead = try await epoch()
        let lockHolder = try await h.pool.query(
            """
            SELECT l.pid FROM pg_locks l JOIN pg_stat_activity a USING (pid)
            WHERE l.locktype = 'advisory' AND l.objsubid = 2 AND l.granted AND a.application_name = 'hallmark-probe-writer'
            """)[0].column(0, as: Int32.self)
        _ = try await h.pool.query("SELECT pg_terminate_backend(\(lockHolder))")
        try await h.wait("a new lead after the lock's session ended", timeout: .seconds(30)) { try await epoch() > lead }
        try await insert(2_000)
        try await h.wait("every item appended", timeout: .seconds(120)) { try await logSize() == inserted }
        #expect(
            try await h.pool.query("SELECT count(DISTINCT item_id)::bigint, max(position) FROM \(unescaped: schema).writer_log")[
                0
            ]
            .decode((Int64, Int64).self) == (inserted, inserted - 1))
        // It finds out at its next check of the lock (each second), or when it tries to write
        // under its old epoch: an idle leader's looks are up to 500 ms apart, so it may find
        // nothing to write before the new leader has appended everything.
        try await h.wait("the leader without its lock steps down", timeout: .seconds(10)) {
            writers.contains { $0.1.logCount("writer stepped down") >= 1 }
        }

        for (_, writer) in writers { writer.signal(SIGTERM) }
        for (name, writer) in writers { #expect(await writer.waitForExit(timeout: .seconds(30)) == 0, "\(name) exit") }
        _ = try await h.pool.execute("DROP SCHEMA \(unescaped: schema) CASCADE")
        await h.close()
    }

    /// The counter named `name` in a snapshot, summed over its dimensions.
    static func counter(_ name: String, in value: [UInt8]) -> Double? {
        let object = try? JSONSerialization.jsonObject(with: Data(value)) as? [String: Any]
        let found = (object?["counters"] as? [[String: Any]] ?? []).filter { $0["name"] as? String == name }
        return found.isEmpty ? nil : found.reduce(0) { $0 + ($1["value"] as? Double ?? 0) }
    }
}
