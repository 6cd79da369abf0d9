import CoreMetrics
import Foundation
import HallmarkCore
import HallmarkMessages
import Testing

@testable import HallmarkRuntime

@Suite(.timeLimit(.minutes(2)))
struct MetricsRegistryTests {
    @Test func snapshotHasCountersGaugesAndHistogramPercentiles() throws {
        let registry = MetricsRegistry()
        let counter = registry.makeCounter(label: "c", dimensions: [("service", "x")])
        counter.increment(by: 3)
        registry.makeCounter(label: "c", dimensions: [("service", "x")]).increment(by: 2)
        registry.makeMeter(label: "g", dimensions: []).set(Int64(7))
        let timer = registry.makeTimer(label: "t", dimensions: [])
        for v in 1...100 { timer.recordNanoseconds(Int64(v)) }

        let first = registry.snapshot()
        #expect(first.counters == [.init(name: "c", dimensions: ["service": "x"], value: 5)])
        #expect(first.gauges.first?.value == 7)
        let h = try #require(first.histograms.first)
        #expect((h.count, h.sum, h.min, h.max) == (100, 5050, 1, 100))
        #expect(abs(h.p50 - 50) <= 1 && abs(h.p90 - 90) <= 1 && abs(h.p99 - 99) <= 1)

        // Histograms cover one interval; counters are cumulative.
        let second = registry.snapshot()
        #expect(second.histograms.first?.count == 0)
        #expect(second.counters.first?.value == 5)
    }

    /// Gauges set together (a total and its parts, a partition created or destroyed among them)
    /// are seen together by every snapshot, however the two threads interleave: a stage's lag
    /// total was once read beside its partitions' older values.
    @Test func gaugesSetTogetherAreReadTogether() async {
        let registry = MetricsRegistry()
        let total = registry.makeMeter(label: "total", dimensions: [])
        let first = registry.makeMeter(label: "part", dimensions: [("p", "0")])
        let writer = Task.detached {
            for i in 1...20_000 {
                registry.together {
                    total.set(Int64(3 * i))
                    first.set(Int64(i))
                    let second = registry.makeMeter(label: "part", dimensions: [("p", "1")])
                    if i.isMultiple(of: 2) { second.set(Int64(2 * i)) } else { registry.destroyMeter(second) }
                    if !i.isMultiple(of: 2) { total.set(Int64(i)) }
                }
            }
        }
        var snapshots = 0
        while !writer.isCancelled, snapshots < 20_000 {
            let gauges = registry.snapshot().gauges
            let sum = gauges.filter { $0.name == "part" }.reduce(0) { $0 + $1.value }
            let expected = gauges.first { $0.name == "total" }?.value ?? 0
            if sum != expected {
                Issue.record("a snapshot read the parts \(sum) beside the total \(expected)")
                break
            }
            snapshots += 1
        }
        await writer.value
    }

    /// A destroyed gauge leaves the snapshots; the others, and a new one of the same name, stay.
    @Test func aDestroyedGaugeLeavesTheSnapshot() {
        let registry = MetricsRegistry()
        let kept = registry.makeMeter(label: "lag", dimensions: [("partition", "0")])
        let revoked = registry.makeMeter(label: "lag", dimensions: [("partition", "1")])
        kept.set(Int64(3))
        revoked.set(Int64(4))
        registry.destroyMeter(revoked)
        #expect(registry.snapshot().gauges == [.init(name: "lag", dimensions: ["partition": "0"], value: 3)])
        registry.makeMeter(label: "lag", dimensions: [("partition", "1")]).set(Int64(5))
        #expect(registry.snapshot().gauges.map(\.value) == [3, 5])
    }

    @Test func reservoirBoundsMemoryButKeepsExactCountAndExtremes() throws {
        let registry = MetricsRegistry(reservoirSize: 64)
        let recorder = registry.makeRecorder(label: "r", dimensions: [], aggregate: true)
        for v in 0..<10_000 { recorder.record(Int64(v)) }
        let h = try #require(registry.snapshot().histograms.first)
        #expect(h.count == 10_000 && h.min == 0 && h.max == 9_999)
        #expect(h.p50 > 2_000 && h.p50 < 8_000)
    }

    @Test func snapshotEncodesAsTheMetricsSchema() throws {
        let registry = MetricsRegistry()
        registry.makeCounter(label: "c", dimensions: []).increment(by: 1)
        let (c, g, h) = registry.snapshot()
        let snapshot = Message(
            MetricsSnapshot(service: "s", instance: "i", intervalSeconds: 10, counters: c, gauges: g, histograms: h))
        let json = try JSONSerialization.jsonObject(with: Data(JSONCoding.encode(snapshot))) as? [String: Any]
        #expect(json?["schema"] as? String == "hallmark.metrics.v1")
        #expect(json?["produced_at"] != nil && json?["interval_seconds"] != nil)
    }
}
