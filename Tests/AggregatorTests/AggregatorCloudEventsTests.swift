import Foundation
import HallmarkClient
import HallmarkCore
import HallmarkCrypto
import HallmarkKafka
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// Every message the authority and the aggregator produce is a CloudEvent in binary content
/// mode, read by PyPI's CloudEvents SDK (``CloudEventsCheck``): the same id,
/// type, time and correlation id as its payload, which is its data unchanged. Input headers
/// are never trusted: a submission carrying forged ones is answered by its payload.
@Suite("CloudEvents on every output", .serialized, .timeLimit(.minutes(6)))
struct AggregatorCloudEventsTests {
    @Test func theSDKReadsEveryOutputAsItsPayloadSays() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        // Metrics snapshots often enough to find one.
        let (authority, aggregator) = try await h.startBoth(["HALLMARK_METRICS_INTERVAL_MS": "300"])
        defer { [authority, aggregator].forEach { $0.signal(SIGKILL) } }
        let camera = try await h.provisioned("CAM-CE-\(h.id)")
        let hash = Hex.encode(try SecureRandom.bytes(32))
        // Forged headers on the input: another id, type and time. The answer is the payload's.
        let submission = try camera.submission(.reference, hashes: [.init(imageHash: hash, modificationLevel: 0)])
        try await h.producer.send([
            KafkaOutgoingMessage(
                topic: h.aggregator.submissionInput, key: Array(submission.id.text.utf8),
                value: try JSONCoding.encode(submission),
                headers: [
                    KafkaHeader("ce_id", text: "forged"), KafkaHeader("ce_type", text: "hallmark.submission.result.v1"),
                    KafkaHeader("ce_specversion", text: "1.0"), KafkaHeader("ce_source", text: "/elsewhere"),
                ])
        ])
        let answer = try #require(await h.answers([submission.id], timeout: .seconds(60))[submission.id])
        #expect(answer.status == .accepted && answer.requestID == submission.id)
        _ = try await h.ask(Message(LogVerifyRequest(imageHash: hash)))
        // Bad input: its rejected record and typed answer are events too.
        try await h.producer.send(topic: h.aggregator.submissionInput, key: nil, value: Array("{not json".utf8))
        let bad = try camera.submission(.reference, hashes: [.init(imageHash: "zz", modificationLevel: 0)])
        _ = try await h.submitRaw(bad)
        _ = await h.watcher.wait(timeout: .seconds(60)) { w in
            !w.messages(on: h.rejected).isEmpty && !w.messages(on: h.aggregator.checkpoints).isEmpty
        }
        let metrics = try AnswerWatcher(kafka: h.kafka, topics: [h.topic("metrics")], fromStart: true, logger: h.logger)
        let reading = Task { await metrics.run() }
        defer { reading.cancel() }
        #expect(await metrics.wait(timeout: .seconds(30)) { !$0.messages(on: h.topic("metrics")).isEmpty })
        await metrics.close()

        let required = [
            h.authority.provisionOutput, h.authority.tokenInput, h.authority.tokenOutput, h.aggregator.submissionOutput,
            h.aggregator.checkpoints, h.aggregator.verifyOutput, h.rejected, h.topic("metrics"),
        ]
        let others = [h.authorityRejected, h.security, h.authority.auditTopic, h.aggregator.auditTopic]
        let check = try await CloudEventsCheck.run(brokers: h.kafka.brokers, required: required, others: others)
        #expect(check.passed, "\(check.output)")
        for topic in required { #expect(check.checked[topic] ?? 0 > 0, "\(topic)") }
    }
}
