import Foundation
import HallmarkCore
import HallmarkMessages
import Testing

@testable import EdgeCore

/// What the `/ops` page draws, from snapshots as the services send them: rates from counter
/// changes per instance, summed per stage; latency weighted by count (p50) and worst (p99);
/// lag summed; rejections and security events per minute; the log's sizes; a bounded window.
@Suite("Ops board", .timeLimit(.minutes(1)))
struct OpsBoardTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func snapshot(
        _ instance: String, service: String = "signer", at seconds: Double, processed: Double, rejected: Double = 0,
        lag: Double = 0, p50: Double = 2e6, p99: Double = 9e6, count: Int = 10, gauges: [String: Double] = [:]
    ) -> Message<MetricsSnapshot> {
        let group = ["group": "hallmark-\(service)"]
        return Message(
            MetricsSnapshot(
                service: service, instance: instance, intervalSeconds: 10,
                counters: [
                    .init(name: "hallmark_stage_processed_total", dimensions: group, value: processed),
                    .init(
                        name: "hallmark_stage_rejected_total", dimensions: group.merging(["reason": "bad_mac"]) { a, _ in a },
                        value: rejected),
                ],
                gauges: [.init(name: "hallmark_stage_consumer_lag", dimensions: group, value: lag)]
                    + gauges.map { .init(name: $0.key, dimensions: [:], value: $0.value) },
                histograms: [
                    .init(
                        name: "hallmark_stage_processing_ns", dimensions: group, count: count, sum: 0, min: 0, max: 0, p50: p50,
                        p90: p99, p99: p99)
                ]), producedAt: Timestamp(start.addingTimeInterval(seconds)))
    }

    @Test func twoReplicasMakeOneStage() throws {
        var board = OpsBoard()
        board.add(Self.snapshot("a", at: 0, processed: 0))
        board.add(Self.snapshot("b", at: 1, processed: 0))
        board.add(Self.snapshot("a", at: 10, processed: 100, rejected: 5, lag: 3, p50: 2e6, count: 30))
        board.add(Self.snapshot("b", at: 11, processed: 300, lag: 4, p50: 4e6, p99: 20e6, count: 10))
        let data = board.data(now: Self.start.addingTimeInterval(12))
        let stage = try #require(data.stages.first)
        #expect(data.stages.count == 1 && stage.service == "signer" && stage.group == "hallmark-signer" && stage.instances == 2)
        let last = try #require(stage.points.last)
        #expect(last.t == 1_800_000_010)
        #expect(last.outPerSecond == 40 && last.inPerSecond == 40.5)
        #expect(last.lag == 7)
        #expect(last.p50Ms == 2.5 && last.p99Ms == 20)
        // 5 rejections in a 10 s bucket: 30 a minute.
        #expect(data.rejectionsPerMinute.map(\.value) == [30])
        #expect(data.instances.map(\.instance) == ["a", "b"] && data.instances.allSatisfy { !$0.stale })
    }

    @Test func replaysRestartsAndTheWindow() throws {
        var board = OpsBoard(bucketSeconds: 10, windowSeconds: 60)
        board.add(Self.snapshot("a", at: 0, processed: 50))
        board.add(Self.snapshot("a", at: 10, processed: 150))
        // A replay of an older snapshot changes nothing; a restart's counters fell: no rate.
        board.add(Self.snapshot("a", at: 5, processed: 0))
        board.add(Self.snapshot("a", at: 20, processed: 7))
        var points = try #require(board.data(now: Self.start.addingTimeInterval(21)).stages.first).points
        #expect(points.map(\.outPerSecond) == [nil, 10, nil])
        // Past the window, the old buckets go, and an instance silent past three intervals is stale.
        board.add(Self.snapshot("a", at: 90, processed: 107))
        let data = board.data(now: Self.start.addingTimeInterval(130))
        points = try #require(data.stages.first).points
        #expect(points.map(\.t) == [1_800_000_090] && points[0].outPerSecond == 100.0 / 70)
        #expect(data.instances.map(\.stale) == [true])
    }

    /// A bucket's rate is its mean: a burst the first snapshot of a bucket saw stays when the
    /// later ones in the bucket saw nothing (it once read as the last snapshot's zero).
    @Test func aBurstStaysInItsBucketsMean() throws {
        var board = OpsBoard(bucketSeconds: 10, windowSeconds: 60)
        board.add(Self.snapshot("a", at: 10, processed: 0))
        board.add(Self.snapshot("a", at: 11, processed: 3))
        for second in 12...15 { board.add(Self.snapshot("a", at: Double(second), processed: 3)) }
        let points = try #require(board.data(now: Self.start.addingTimeInterval(16)).stages.first).points
        #expect(points.map(\.outPerSecond) == [3.0 / 5])
    }

    @Test func securityEventsAndTheLogSizes() throws {
        var board = OpsBoard(eventLimit: 2)
        for (i, kind) in [SecurityEvent.Kind.allCases[0], .allCases[1], .allCases[0]].enumerated() {
            board.add(
                Message(
                    SecurityEvent(service: "gateway", instance: "g", event: kind, severity: .warning, reason: "secret-ish"),
                    producedAt: Timestamp(Self.start.addingTimeInterval(Double(i)))))
        }
        board.add(
            Self.snapshot(
                "agg", service: "aggregator", at: 3, processed: 0,
                gauges: ["hallmark_aggregator_tree_size": 1200, "hallmark_aggregator_witnessed_tree_size": 1100]))
        let data = board.data(now: Self.start.addingTimeInterval(4))
        #expect(data.securityEventsPerMinute.map(\.value) == [18])
        #expect(data.securityEvents.count == 2 && data.securityEvents.map(\.service) == ["gateway", "gateway"])
        #expect(data.log.treeSize.map(\.value) == [1200] && data.log.witnessedTreeSize.map(\.value) == [1100])
        // The page's JSON names the event's kind and severity, never its other fields.
        let json = String(decoding: try JSONCoding.encode(data), as: UTF8.self)
        #expect(!json.contains("secret-ish") && json.contains(#""kind":"\#(SecurityEvent.Kind.allCases[0].rawValue)""#))
        #expect(json.contains(#""witnessed_tree_size":[{"t":1800000000,"value":1100}]"#))
    }
}
