import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkKafka
import HallmarkPostgres
import HallmarkRuntime
import HallmarkTestSupport
import Testing

/// The stage loop run as its own process (`hallmark probe`) against the real broker and
/// PostgreSQL. Each test has its own topics, schema and processes, so they run beside the
/// other suites; the database restart is ``StageLoopRestartTests``, which runs alone.
@Suite("Stage loop, end to end", .timeLimit(.minutes(10)))
struct StageLoopIntegrationTests {
    @Test func tenThousandMessagesNoneLostNoneTwice() async throws {
        let h = try await StageHarness()
        defer { Task { await h.close() } }
        let ids = try await h.produceRequests(10_000, keys: 100)
        let probe = try h.startProbe("a", ["HALLMARK_MAX_IN_FLIGHT": "64", "HALLMARK_POSTGRES_POOL_SIZE": "16"])
        // A bound, not a pace: beside other suites on a loaded machine 10,000 took over 180 s.
        try await h.waitForEffects(10_000, timeout: .seconds(420))
        let effects = try await h.effects()
        #expect(effects.rows == 10_000, "an effect happened twice")
        #expect(effects.distinct == 10_000)

        let answered = try await h.answered(ids)
        #expect(answered.count == 10_000, "\(10_000 - answered.count) requests got no answer")
        // Waits for a live snapshot that sees the drained backlog (after one that saw it).
        let lag = "hallmark_stage_consumer_lag"
        _ = try await h.read(h.metrics, timeout: .seconds(30)) { snapshots in
            guard let last = snapshots.last, Self.gauge(lag, in: last.value) == 0 else { return false }
            return snapshots.contains { (Self.gauge(lag, in: $0.value) ?? 0) > 0 }
        }
        probe.signal(SIGTERM)
        #expect(await probe.waitForExit(timeout: .seconds(30)) == 0)
        #expect(probe.logCount("message rejected") == 0)

        // The lag gauge saw the backlog, and a live snapshot after it drained sees none. (The
        // last one, at shutdown, is taken after the partitions were revoked.)
        let lags = try await h.read(h.metrics, timeout: .seconds(10)) { _ in false }
            .compactMap { Self.gauge("hallmark_stage_consumer_lag", in: $0.value) }
        #expect(lags.contains { $0 > 0 }, "lag snapshots: \(lags)")
        #expect(lags.dropLast().last == 0, "lag snapshots: \(lags)")

        // Per partition too: every snapshot's partition lags add up to its total, and the one
        // with the largest backlog names partitions of the input topic.
        let snapshots = try await h.read(h.metrics, timeout: .seconds(10)) { _ in false }.map(\.value)
        for value in snapshots {
            let total = Self.gauge("hallmark_stage_consumer_lag", in: value) ?? 0
            let partitions = Self.values("hallmark_stage_partition_lag", in: value)
            #expect(partitions.reduce(0) { $0 + $1.value } == total, "\(partitions) against \(total)")
        }
        let busiest = try #require(snapshots.max { (Self.gauge(lag, in: $0) ?? 0) < (Self.gauge(lag, in: $1) ?? 0) })
        let named = Self.values("hallmark_stage_partition_lag", in: busiest)
        #expect(!named.isEmpty && named.allSatisfy { $0.dimensions["topic"] == h.input && $0.dimensions["partition"] != nil })
        // Live and healthy all along: every stage's stalled gauge is 0.
        #expect(snapshots.dropLast().allSatisfy { Self.gauges("hallmark_stage_stalled", in: $0).values.allSatisfy { $0 == 0 } })
    }

    @Test func killedConsumerRestartsAndEveryMessageIsProcessed() async throws {
        let h = try await StageHarness()
        defer { Task { await h.close() } }
        let ids = try await h.produceRequests(3_000)
        let first = try h.startProbe("first")
        try await h.waitForEffects(500)
        first.signal(SIGKILL)
        #expect(await first.waitForExit(timeout: .seconds(10)) != nil)
        let killedAt = try await h.effects().distinct
        #expect(killedAt < 3_000, "the kill came too late to test anything")

        let second = try h.startProbe("second")
        try await h.waitForEffects(3_000)
        let effects = try await h.effects()
        #expect(effects.distinct == 3_000)
        #expect(effects.rows == effects.distinct, "a transaction interrupted by SIGKILL left a partial effect")
        let answered = try await h.answered(ids)
        #expect(answered.count == 3_000, "\(3_000 - answered.count) requests got no answer")
        second.signal(SIGTERM)
        #expect(await second.waitForExit(timeout: .seconds(30)) == 0)
    }

    @Test func poisonMessagesAreRejectedWithReasonsAndTheLoopGoesOn() async throws {
        let h = try await StageHarness()
        defer { Task { await h.close() } }
        let validID = MessageID.random()
        let poison: [(String, [UInt8])] = [
            ("invalid_json", Array("{not json".utf8)),
            ("invalid_json", Array("[1,2,3]".utf8)),
            ("invalid_json", [0xFF, 0xFE, 0x00]),
            (
                "invalid_envelope",
                Array(#"{"schema":"hallmark.probe.request.v1","produced_at":"2025-01-01T00:00:00.000Z","n":1}"#.utf8)
            ),
            (
                "invalid_envelope",
                Array(#"{"schema":"hallmark.probe.request.v1","id":"nope","produced_at":"2025-01-01T00:00:00.000Z","n":1}"#.utf8)
            ),
            (
                "unknown_schema",
                Array(
                    #"{"schema":"hallmark.other.v1","id":"\#(MessageID.random())","produced_at":"2025-01-01T00:00:00.000Z"}"#.utf8
                )
            ),
            (
                "schema_violation",
                Array(
                    #"{"schema":"hallmark.probe.request.v1","id":"\#(MessageID.random())","produced_at":"2025-01-01T00:00:00.000Z","n":"x"}"#
                        .utf8)
            ),
            ("schema_violation", StageHarness.request(n: -1)),
            ("oversized", StageHarness.request(n: 1) + Array(repeating: 0x20, count: 5_000)),
            ("processing_failed", StageHarness.request(n: 2, fail: "always")),
        ]
        // All on one key, so they sit in front of the valid message in one partition.
        var offsets: [Int64] = []
        for (_, bytes) in poison {
            offsets.append(try await h.producer.send(topic: h.input, key: Array("same".utf8), value: bytes).offset)
        }
        try await h.producer.send(topic: h.input, key: Array("same".utf8), value: StageHarness.request(n: 7, id: validID))
        try await h.produceRequests(20, keys: 5, from: 100)

        let probe = try h.startProbe("poison", ["HALLMARK_MAX_MESSAGE_BYTES": "4096"])
        try await h.waitForEffects(21, timeout: .seconds(60))
        let rejected = try await h.read(h.rejected, count: poison.count)
        #expect(rejected.count == poison.count)
        let rejectedSchema = try JSONSchemaValidator.load("hallmark.rejected.v1")
        for message in rejected { try rejectedSchema.validate(bytes: message.value) }
        let records = try rejected.map { try JSONCoding.decode(Message<RejectedRecord>.self, from: $0.value).body }
        for (i, (reason, bytes)) in poison.enumerated() {
            let record = records.first { $0.source.offset == offsets[i] && $0.source.topic == h.input }
            #expect(record?.reason.rawValue == reason, "poison #\(i)")
            #expect(record?.originalSize == bytes.count, "poison #\(i) size")
            #expect(record?.originalSHA256 == Hex.encode(SHA256Hash.digest(bytes)), "poison #\(i) digest")
            #expect(record?.service == "probe")
            // The whole original while the record fits the 4 KiB limit; its start otherwise.
            let truncated = reason == "oversized"
            #expect(record?.originalTruncated == truncated, "poison #\(i) truncation")
            let carried = record.flatMap { Data(base64Encoded: $0.originalB64) } ?? Data()
            #expect(
                truncated ? (carried.count > 1000 && bytes.starts(with: carried)) : carried == Data(bytes),
                "poison #\(i) bytes")
        }
        #expect(rejected.allSatisfy { $0.value.count + ($0.key?.count ?? 0) <= 4096 }, "a record exceeds the limit")
        #expect(try await h.answered([validID]) == [validID])
        probe.signal(SIGTERM)
        #expect(await probe.waitForExit(timeout: .seconds(30)) == 0)

        // Every message type the run produced matches its schema in proto-json/.
        let resultSchema = try JSONSchemaValidator.load("hallmark.probe.result.v1")
        for message in try await h.read(h.output, count: 21) { try resultSchema.validate(bytes: message.value) }
        try JSONSchemaValidator.load("hallmark.probe.request.v1").validate(bytes: StageHarness.request(n: 3))
        // Until one counts the rejections: a snapshot taken before them (a loaded machine's first
        // one can be) has no such counter yet; the last, at shutdown, has.
        func counters(_ value: [UInt8]) -> [String] {
            ((try? JSONSerialization.jsonObject(with: Data(value)) as? [String: Any])?["counters"] as? [[String: Any]] ?? [])
                .compactMap { $0["name"] as? String }
        }
        let snapshots = try await h.read(h.metrics, timeout: .seconds(30)) { snapshots in
            snapshots.contains { counters($0.value).contains("hallmark_stage_rejected_total") }
        }
        #expect(!snapshots.isEmpty, "no metrics snapshot was published")
        let metricsSchema = try JSONSchemaValidator.load("hallmark.metrics.v1")
        for snapshot in snapshots { try metricsSchema.validate(bytes: snapshot.value) }
        #expect(snapshots.contains { counters($0.value).contains("hallmark_stage_rejected_total") })
    }

    @Test func sigtermFinishesInFlightAndARestartRedoesNothing() async throws {
        let h = try await StageHarness()
        defer { Task { await h.close() } }
        try await h.produceRequests(600, keys: 40)
        let first = try h.startProbe("term1", ["HALLMARK_PROBE_DELAY_MS": "20", "HALLMARK_MAX_IN_FLIGHT": "16"])
        try await h.waitForEffects(100)
        first.signal(SIGTERM)
        #expect(await first.waitForExit(timeout: .seconds(30)) == 0)
        let finished = try await h.effects()
        #expect(finished.distinct < 600, "everything finished before SIGTERM: nothing tested")
        #expect(first.logCount("stage stopped") == 1)

        let second = try h.startProbe("term2")
        try await h.waitForEffects(600)
        second.signal(SIGTERM)
        #expect(await second.waitForExit(timeout: .seconds(30)) == 0)
        #expect(second.logCount("redelivery answered again") == 0, "the restart re-processed finished messages")
        #expect(try await h.effects().rows == 600)
    }

    @Test func migrationsApplyOnceWhenTwoServicesStartTogether() async throws {
        let h = try await StageHarness()
        defer { Task { await h.close() } }
        let a = try h.startProbe("mig-a")
        let b = try h.startProbe("mig-b")
        try await h.wait("both probes started", timeout: .seconds(60)) {
            a.logCount("stage started") == 1 && b.logCount("stage started") == 1
        }
        let rows = try await h.pool.query(
            "SELECT version, count(*)::bigint FROM \(unescaped: h.schema).schema_migrations GROUP BY version ORDER BY version")
        let versions = try rows.map { try $0.decode((Int32, Int64).self) }
        #expect(
            versions.map(\.0) == [
                0, 1, 2, Int32(StageDatabase.runtimeVersions + 1), Int32(StageDatabase.runtimeVersions + 4),
                Int32(StageDatabase.runtimeVersions + 8),
            ])
        #expect(versions.allSatisfy { $0.1 == 1 })
        try await h.produceRequests(50)
        try await h.waitForEffects(50, timeout: .seconds(60))
        for p in [a, b] {
            p.signal(SIGTERM)
            #expect(await p.waitForExit(timeout: .seconds(30)) == 0)
        }
        #expect(a.rawLog.contains("cannot start") == false && b.rawLog.contains("cannot start") == false)
    }

    @Test func messagesWithOneKeyAreProcessedInOrderWhileKeysRunConcurrently() async throws {
        let h = try await StageHarness()
        defer { Task { await h.close() } }
        // Each key's n rises in its partition's order.
        try await h.produceOrdered(keys: 15, perKey: 100)
        let probe = try h.startProbe("order", ["HALLMARK_MAX_IN_FLIGHT": "32", "HALLMARK_PROBE_DELAY_MS": "2"])
        try await h.waitForEffects(1_500)
        let rows = try await h.pool.query(
            "SELECT key, n, instance FROM \(unescaped: h.schema).effects ORDER BY seq")
        var lastN: [String: Int] = [:]
        var outOfOrder = 0
        for row in rows {
            let (key, n, _) = try row.decode((String, Int, String).self)
            if let previous = lastN[key], n < previous { outOfOrder += 1 }
            lastN[key] = n
        }
        #expect(lastN.count == 15)
        #expect(outOfOrder == 0, "\(outOfOrder) effects were written before an earlier message of their key")
        // Concurrency really happened: more than one transaction was open at once.
        let overlap = try await h.pool.query(
            """
            SELECT count(*)::bigint FROM \(unescaped: h.schema).effects a JOIN \(unescaped: h.schema).effects b
            ON a.seq + 1 = b.seq AND a.key <> b.key AND b.at < a.at
            """)
        #expect(try overlap[0].decode(Int64.self) > 0, "no two keys overlapped: nothing concurrent was tested")
        probe.signal(SIGTERM)
        #expect(await probe.waitForExit(timeout: .seconds(30)) == 0)
    }

    @Test func refusesToStartWithAnOldLibrdkafka() async throws {
        let debian = "/usr/lib/x86_64-linux-gnu"
        guard FileManager.default.fileExists(atPath: debian + "/librdkafka.so.1") else {
            Issue.record("Debian's librdkafka is not installed: deploy/local/setup installs it")
            return
        }
        let h = try await StageHarness()
        defer { Task { await h.close() } }
        let probe = try h.startProbe("old-lib", ["LD_LIBRARY_PATH": debian])
        #expect(await probe.waitForExit(timeout: .seconds(20)) == 1)
        #expect(probe.rawLog.contains("needs 2.2 or later"))
        #expect(probe.rawLog.contains("deploy/local/setup"))
    }

    /// Every gauge named `name` in a snapshot, with its dimensions.
    static func values(_ name: String, in value: [UInt8]) -> [(dimensions: [String: String], value: Double)] {
        let object = try? JSONSerialization.jsonObject(with: Data(value)) as? [String: Any]
        return (object?["gauges"] as? [[String: Any]] ?? []).filter { $0["name"] as? String == name }.map {
            (($0["dimensions"] as? [String: String]) ?? [:], $0["value"] as? Double ?? .nan)
        }
    }

    /// The gauges named `name` in a snapshot, by their `group` dimension.
    static func gauges(_ name: String, in value: [UInt8]) -> [String: Double] {
        Dictionary(values(name, in: value).map { ($0.dimensions["group"] ?? "", $0.value) }, uniquingKeysWith: { a, _ in a })
    }

    static func gauge(_ name: String, in value: [UInt8]) -> Double? {
        let object = try? JSONSerialization.jsonObject(with: Data(value)) as? [String: Any]
        let gauges = object?["gauges"] as? [[String: Any]] ?? []
        return gauges.first { $0["name"] as? String == name }?["value"] as? Double
    }
}
