import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// DESIGN §2's envelope rules through the reference stage: a result keeps the input's
/// `correlation_id` (or takes its `id`), and goes to the input's `reply_to` only when the stage's
/// allowlist names that topic, else to the configured output.
@Suite("Envelope propagation", .serialized, .timeLimit(.minutes(3)))
struct EnvelopePropagationTests {
    @Test func correlationIsKeptAndReplyToNeedsTheAllowlist() async throws {
        let h = try await StageHarness()
        let allowed = "test.probe.\(h.id).allowed", other = "test.probe.\(h.id).other"
        try await KafkaAdmin(configuration: h.kafka, logger: h.logger).createTopics([allowed, other], partitions: 1)
        let probe = try h.startProbe("propagation", ["HALLMARK_REPLY_TOPICS": allowed])
        func send(_ n: Int, correlation: String?, replyTo: String?) async throws -> String {
            let request = Message(ProbeRequest(n: n), correlationID: correlation, replyTo: replyTo)
            try await h.producer.send(topic: h.input, key: Array("k".utf8), value: JSONCoding.encode(request))
            return request.id.text
        }
        let plain = try await send(1, correlation: nil, replyTo: nil)
        _ = try await send(2, correlation: "trace-2", replyTo: allowed)
        _ = try await send(3, correlation: "trace-3", replyTo: other)
        let toAllowed = try await h.read(allowed, count: 1).map {
            try JSONCoding.decode(Message<ProbeResult>.self, from: $0.value)
        }
        #expect(toAllowed.map(\.n) == [2] && toAllowed.first?.correlationID == "trace-2")
        let outputs = try await h.read(h.output, count: 2).map {
            try JSONCoding.decode(Message<ProbeResult>.self, from: $0.value)
        }
        #expect(Set(outputs.map(\.n)) == [1, 3], "a reply_to off the allowlist goes to the output topic")
        #expect(outputs.first { $0.n == 1 }?.correlationID == plain)
        #expect(outputs.first { $0.n == 3 }?.correlationID == "trace-3")
        // Nothing reached the topic that was not allowed.
        #expect(try await h.readAll(other).isEmpty)
        probe.signal(SIGTERM)
        #expect(await probe.waitForExit(timeout: .seconds(30)) == 0)
        await h.close()
    }
}
