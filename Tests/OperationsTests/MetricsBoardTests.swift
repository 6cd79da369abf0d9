import Foundation
import HallmarkCLICore
import HallmarkCore
import HallmarkMessages
import Testing

/// What `hallmark top` computes from snapshots: rates from two snapshots of an instance,
/// latency, lag, rejections by reason, staleness, and a screen that fits 80 columns.
@Suite(.timeLimit(.minutes(1)))
struct MetricsBoardTests {
    static func snapshot(
        _ instance: String, service: String = "signer", at seconds: Int, processed: Double,
        rejected: [String: Double] = [:], duplicates: Double = 0, lag: Double = 0,
        timings: [(count: Int, p50: Double, p99: Double)] = []
    ) -> Message<MetricsSnapshot> {
        var counters = [
            MetricsSnapshot.Value(
                name: "hallmark_stage_processed_total",
                dimensions: ["service": service, "group": "hallmark-\(service)"], value: processed),
            .init(name: "hallmark_stage_duplicates_total", dimensions: ["service": service], value: duplicates),
            .init(name: "hallmark_signer_signed_total", dimensions: ["service": service], value: 999),
        ]
        for (reason, count) in rejected {
            counters.append(
                .init(name: "hallmark_stage_rejected_total", dimensions: ["service": service, "reason": reason], value: count))
        }
        let histograms = timings.enumerated().map { index, t in
            MetricsSnapshot.Histogram(
                name: "hallmark_stage_processing_ns", dimensions: ["group": "g\(index)"], count: t.count,
                sum: 0, min: 0, max: 0, p50: t.p50, p90: 0, p99: t.p99)
        }
        return Message(
            MetricsSnapshot(
                service: service, instance: instance, intervalSeconds: 10, counters: counters,
                gauges: [.init(name: "hallmark_stage_consumer_lag", dimensions: [:], value: lag)],
                histograms: histograms),
            id: MessageID(UUID()), producedAt: time(seconds))
    }

    static func time(_ seconds: Int) -> Timestamp {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return Timestamp(formatter.string(from: Date(timeIntervalSince1970: 1_800_000_000 + Double(seconds))))!
    }

    static func date(_ seconds: Int) -> Date { Date(timeIntervalSince1970: 1_800_000_000 + Double(seconds)) }

    @Test func ratesComeFromTheLastTwoSnapshotsOfAnInstance() throws {
        var board = MetricsBoard()
        board.add(Self.snapshot("a", at: 0, processed: 100, rejected: ["invalid_json": 2], duplicates: 1))
        board.add(
            Self.snapshot(
                "a", at: 10, processed: 600, rejected: ["invalid_json": 7, "oversized": 3], duplicates: 4, lag: 42,
                timings: [(100, 2_000_000, 9_000_000), (300, 6_000_000, 30_000_000)]))
        let row = try #require(board.rows(now: Self.date(11)).first)
        #expect(row.outPerSecond == 50)  // (600 - 100) / 10 s
        #expect(row.inPerSecond == (608.0 + 6.0 - 103) / 10)  // processed + rejected + duplicates
        #expect(row.processed == 600 && row.rejected == 10 && row.lag == 42)
        #expect(row.p50Milliseconds == 5)  // (100 × 2 + 300 × 6) / 400 ms
        #expect(row.p99Milliseconds == 30)  // the worst group
        #expect(row.rejections.map(\.reason) == ["invalid_json", "oversized"] && row.rejections.map(\.count) == [7, 3])
        #expect(!row.stale)
    }

    @Test func aRestartedInstanceHasNoRateAndAReplayedSnapshotIsIgnored() throws {
        var board = MetricsBoard()
        board.add(Self.snapshot("a", at: 0, processed: 500))
        board.add(Self.snapshot("a", at: 10, processed: 20))  // counters restart with the process
        #expect(board.rows(now: Self.date(10)).first?.outPerSecond == nil)
        board.add(Self.snapshot("a", at: 5, processed: 9_999))  // older than the latest: a replay
        #expect(board.rows(now: Self.date(10)).first?.processed == 20)
        let first = try #require(board.rows(now: Self.date(10)).first)
        #expect(first.inPerSecond == nil && first.p50Milliseconds == nil)
    }

    @Test func anInstanceSilentForThreeIntervalsIsStale() {
        var board = MetricsBoard()
        board.add(Self.snapshot("a", at: 0, processed: 1))
        #expect(board.rows(now: Self.date(30)).first?.stale == false)
        #expect(board.rows(now: Self.date(31)).first?.stale == true)
    }

    @Test func theScreenFitsEightyColumnsAndListsTheNewestEvents() throws {
        var board = MetricsBoard(eventLimit: 3)
        board.add(
            Self.snapshot(
                "signer-with-a-very-long-pod-name-7f9c", at: 0, processed: 12_345_678, rejected: ["schema_violation": 12]))
        board.add(Self.snapshot("gateway-1", service: "gateway", at: 0, processed: 3))
        for i in 0..<5 {
            let event = Message(
                SecurityEvent(
                    service: "signer", instance: "s", event: .badMAC, severity: .warning, reason: nil,
                    partnerID: "partner-\(i)-" + String(repeating: "x", count: 80)),
                id: MessageID(UUID()), producedAt: Self.time(i))
            board.add(event)
        }
        #expect(board.events.map { String(($0.partnerID ?? "").prefix(9)) } == ["partner-2", "partner-3", "partner-4"])
        let lines = board.render(now: Self.date(1), source: "hallmark.metrics @ kafka-0.kafka.data.svc.cluster.local:9092")
        #expect(lines.allSatisfy { $0.count <= 80 }, "\(lines.filter { $0.count > 80 })")
        #expect(lines.contains { $0.hasPrefix("gateway    gateway-1 ") })
        #expect(lines.contains { $0.contains("12.3M") && $0.contains("12") })
        #expect(lines.contains { $0.contains("schema_violation 12") })
        #expect(lines.firstIndex { $0.contains("partner-4") }! < lines.firstIndex { $0.contains("partner-2") }!)
        #expect(!lines.contains { $0.contains("partner-1") })
    }
}
