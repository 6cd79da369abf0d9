import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkSubprocess
import HallmarkTestSupport
import Testing

/// The health file as a container's health check reads it: the probe stage as its own process
/// on the real broker and PostgreSQL writes `ok`; a message that can never finish makes it
/// `stalled` within the stall limit; a stop makes it `stopping`; a process that no longer runs
/// leaves a file that ages past the check's limit. Each verdict as `deploy/containers/healthcheck`
/// gives it.
@Suite("Health file", .serialized, .timeLimit(.minutes(3)))
struct HealthFileIntegrationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `deploy/containers/healthcheck` against `file`: its status and what it said.
    static func check(_ file: URL, maxAge: Int = 30) async throws -> Subprocess.Result {
        try await Subprocess.run(
            "/bin/sh", [root.appendingPathComponent("deploy/containers/healthcheck").path, "hallmark"],
            environment: [
                "PATH": "/usr/bin:/bin", "HALLMARK_HEALTH_FILE": file.path,
                "HALLMARK_HEALTH_MAX_AGE_SECONDS": "\(maxAge)",
            ])
    }

    static func report(_ file: URL) -> [String: Any]? {
        (try? Data(contentsOf: file)).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
    }

    @Test func okThenStalledThenStoppingThenStale() async throws {
        let h = try await StageHarness()
        defer { Task { await h.close() } }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hallmark-health-\(h.id).json")
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try await Self.check(file).status == 1, "no file yet, and the check passed")

        let probe = try h.startProbe(
            "health",
            [
                "HALLMARK_HEALTH_FILE": file.path, "HALLMARK_HEALTH_INTERVAL_MS": "200", "HALLMARK_HEALTH_STALL_SECONDS": "2",
                "HALLMARK_SHUTDOWN_GRACE_MS": "1000",
            ])
        try await probe.waitForLog("stage started")
        // Healthy, and still healthy once it has processed traffic.
        #expect(try await eventually { Self.report(file)?["status"] as? String == "ok" })
        let ids = try await h.produceRequests(20, keys: 5)
        #expect(try await h.answered(ids).count == 20)
        #expect(Self.report(file)?["status"] as? String == "ok")
        #expect(Self.report(file)?["service"] as? String == "probe")
        #expect(try await Self.check(file).status == 0)

        // The metrics say healthy first: a snapshot with the stage's gauge at 0, before the stall
        // below. (Snapshots come every 2 s; a fresh-clone run whose stall came early read a
        // single snapshot with the stage's gauge, already 1.)
        let group = "test-probe-\(h.id)"
        let stalledGauge = { (m: KafkaMessage) in StageLoopIntegrationTests.gauges("hallmark_stage_stalled", in: m.value)[group] }
        let healthy = try await h.read(h.metrics, timeout: .seconds(30)) { $0.last.flatMap(stalledGauge) == 0 }
        let healthySnapshot = try #require(healthy.last, "no snapshot said the stage is healthy")
        #expect(stalledGauge(healthySnapshot) == 0, "no snapshot said the stage is healthy")

        // A message that fails for ever: in flight, nothing finished, past 2 s. (On a loaded
        // machine the 20 requests above may already have looked stalled for a moment: only the
        // warnings from here on are counted.)
        let warnedBefore = probe.logCount("unhealthy")
        try await h.producer.send(topic: h.input, key: Array("stuck".utf8), value: StageHarness.request(n: 0, fail: "stall"))
        #expect(try await eventually(timeout: .seconds(30)) { Self.report(file)?["status"] as? String == "stalled" })
        let problems = Self.report(file)?["problems"] as? [String] ?? []
        #expect(
            problems.count == 1 && problems[0].hasPrefix("test-probe-\(h.id): 1 in flight, none finished for "), "\(problems)")
        let stalled = try await Self.check(file)
        #expect(stalled.status == 1 && stalled.output.contains("stalled"), "\(stalled.output)")
        #expect(probe.logCount("unhealthy") == warnedBefore + 1)
        // The metrics say the same: a later snapshot of the same process (the same key, so the
        // same partition) has the stage's hallmark_stage_stalled gauge at 1. Its offset orders
        // it after the healthy one; a second read from the topic's start is not relied on to
        // return the healthy snapshot again (a fresh-clone run under load once saw only [1.0]).
        let later = { (m: KafkaMessage) in
            m.partition == healthySnapshot.partition && m.offset > healthySnapshot.offset && stalledGauge(m) == 1
        }
        let stalledSnapshot = try await h.read(h.metrics, timeout: .seconds(30)) { $0.last.map(later) == true }.last
        #expect(
            stalledSnapshot.map(later) == true,
            "no snapshot after the healthy one (offset \(healthySnapshot.offset)) said stalled")

        // A stop: the stalled message is given up after the shutdown grace, the file says so.
        probe.signal(SIGTERM)
        #expect(await probe.waitForExit(timeout: .seconds(30)) == 0)
        #expect(Self.report(file)?["status"] as? String == "stopping")
        #expect(try await Self.check(file).status == 1)
        // Nothing writes it any more: past the check's age limit, that alone fails it.
        try Data(#"{"status":"ok"}"#.utf8).write(to: file)
        #expect(try await Self.check(file, maxAge: 1).status == 0)
        #expect(
            try await eventually(timeout: .seconds(10)) {
                let result = try await Self.check(file, maxAge: 1)
                return result.status == 1 && result.output.contains("not looping")
            })
    }
}
