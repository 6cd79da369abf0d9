import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// Issue #10 §1: a key whose message can never finish holds its own lane and its own
/// partition, and nothing else; the service keeps answering every other partition and still
/// stops on SIGTERM.
@Suite("A stuck key stalls only its own partition", .serialized, .timeLimit(.minutes(5)))
struct StuckKeyIntegrationTests {
    @Test func aStuckKeyHoldsItsPartitionAndEveryOtherPartitionFlows() async throws {
        let h = try await StageHarness()
        defer { Task { await h.close() } }
        // Small bounds, so what the stuck partition parks (all the consumer had fetched of it)
        // far exceeds the in-flight bound: parked messages must not count against it.
        let probe = try h.startProbe("stuck", ["HALLMARK_MAX_IN_FLIGHT": "4", "HALLMARK_LANE_DEPTH": "2"])
        let stuck = Array("stuck".utf8)
        let stall = try await h.producer.send(topic: h.input, key: stuck, value: StageHarness.request(n: 0, fail: "stall"))
        // The stuck key's lane fills and its partition parks behind it.
        for n in 0..<60 {
            try await h.producer.send(topic: h.input, key: stuck, value: StageHarness.request(n: n))
        }
        #expect(
            try await eventually(timeout: .seconds(60)) { probe.logCount("processing failed; retrying") > 0 },
            "the stalled message was never tried")

        // Then traffic on many keys: everything outside the stuck partition is answered.
        var others: [MessageID] = []
        for i in 0..<400 {
            let id = MessageID.random()
            let report = try await h.producer.send(
                topic: h.input, key: Array("key-\(i % 50)".utf8),
                value: StageHarness.request(n: i, id: id))
            if report.partition != stall.partition { others.append(id) }
        }
        #expect(others.count > 100, "the keys all landed in the stuck partition: nothing tested")
        let answered = try await h.answered(others, timeout: .seconds(90))
        #expect(
            answered.count == others.count,
            "\(others.count - answered.count) messages of other partitions waited behind the stuck key")
        #expect(probe.process.isRunning)

        // A graceful stop does not wait for the message that never finishes.
        probe.signal(SIGTERM)
        #expect(await probe.waitForExit(timeout: .seconds(30)) == 0)
    }
}
