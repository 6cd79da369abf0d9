import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkKafka
import HallmarkRuntime
import Logging
import ServiceLifecycle
import Synchronization
import Testing

/// A test batch processor: answers `{"correlation_id", "n"}`; `fail: "always"` makes every
/// batch holding it throw (until the runtime isolates it), `fail: "reject"` rejects it.
struct EchoBatchProcessor: StageProcessor {
    typealias Prepared = StageMessage
    let output: String
    let batches = BatchSizes()

    struct Boom: Error {}

    func commit(_ batch: [StageMessage], context: StageCommitContext) async throws -> [StageVerdict] {
        batches.record(batch.count)
        if batch.contains(where: { $0.fields["fail"]?.string == "always" }) { throw Boom() }
        return batch.map { m in
            if m.fields["fail"]?.string == "reject" { return .rejected(StageRejection(.schemaViolation, "asked to")) }
            let n = m.fields["n"]?.integer ?? -1
            let body = JSONWriter.write(.object(["correlation_id": .string(m.header.id.text), "n": .number(String(n))]))
            return .outputs([StageOutput(topic: output, key: m.kafka.key, value: body)])
        }
    }
}

/// The sizes of the batches a processor saw.
final class BatchSizes: Sendable {
    private let sizes = Mutex<[Int]>([])
    func record(_ n: Int) { sizes.withLock { $0.append(n) } }
    var largest: Int { sizes.withLock { $0.max() ?? 0 } }
    var all: [Int] { sizes.withLock { $0 } }
}

@Suite("Batch stage against the real broker", .serialized, .timeLimit(.minutes(5)))
struct BatchStageIntegrationTests {
    func stage(_ h: StageHarness, _ processor: EchoBatchProcessor) -> Stage<EchoBatchProcessor> {
        var config = StageConfiguration(
            service: "batch-test", inputs: [StageInput(topic: h.input, schemas: [ProbeRequest.schemaName])],
            groupID: h.group, dispatch: .partitionBatches, rejectedTopic: h.rejected,
            maxBatch: 64, batchWorkers: 3, retry: RetryPolicy(initialDelay: .milliseconds(1), maxDelay: .milliseconds(5)))
        config.instance = "batch-\(h.id)"
        return Stage(
            configuration: config, kafka: h.kafka, producer: h.producer, database: nil, processor: processor,
            logger: h.logger)
    }

    @Test func answersEverythingInKeyOrderAndIsolatesPoison() async throws {
        let h = try await StageHarness()
        let processor = EchoBatchProcessor(output: h.output)
        // Valid requests, in order per key, with poison of every kind among them.
        try await h.produceOrdered(keys: 12, perKey: 150)
        let alwaysID = MessageID.random(), rejectID = MessageID.random()
        for (key, value) in [
            ("p1", Array("not json".utf8)),
            ("p2", Array(#"{"schema":"other.v1","id":"\#(MessageID.random())","produced_at":"\#(Timestamp.now().text)"}"#.utf8)),
            ("p3", StageHarness.request(n: 0, id: alwaysID, fail: "always")),
            ("p4", StageHarness.request(n: 0, id: rejectID, fail: "reject")),
        ] {
            try await h.producer.send(topic: h.input, key: Array(key.utf8), value: value)
        }
        try await h.produceOrdered(keys: 12, perKey: 50)  // after the poison, still answered
        let service = stage(h, processor)
        let running = Task { try await service.run() }

        let outputs = try await h.read(h.output, count: 12 * 200, timeout: .seconds(120))
        let rejected = try await h.read(h.rejected, count: 4, timeout: .seconds(60))
        running.cancel()
        _ = await running.result

        #expect(outputs.count == 12 * 200)
        var lastN: [String: Int] = [:]
        var inversions = 0
        for m in outputs {
            let key = String(decoding: m.key ?? [], as: UTF8.self)
            let n = try JSONReader.parse(m.value)["n"]!.integer!
            // Each key's second run restarts at 0: order holds within each run.
            if let last = lastN[key], n <= last, !(n == 0 && last == 149) { inversions += 1 }
            lastN[key] = n
        }
        #expect(inversions == 0)
        let records = try rejected.map { try JSONCoding.decode(Message<RejectedRecord>.self, from: $0.value).body }
        #expect(
            Set(records.map(\.reason.rawValue)) == ["invalid_json", "unknown_schema", "processing_failed", "schema_violation"])
        #expect(records.first { $0.reason == .processingFailed }?.originalID == alwaysID)
        #expect(records.first { $0.reason == .schemaViolation }?.originalID == rejectID)
        #expect(processor.batches.largest > 1, "messages were never batched")
        await h.close()
    }

    @Test func gracefulStopCommitsSoARestartAnswersNothingTwice() async throws {
        let h = try await StageHarness()
        let ids = try await h.produceRequests(600, keys: 20)
        let first = stage(h, EchoBatchProcessor(output: h.output))
        let running = Task { try await first.run() }
        #expect(try await h.answered(ids, timeout: .seconds(120)).count == ids.count)
        running.cancel()  // graceful: finish, commit, leave the group
        _ = await running.result

        let more = try await h.produceRequests(100, keys: 20)
        let second = stage(h, EchoBatchProcessor(output: h.output))
        let again = Task { try await second.run() }
        #expect(try await h.answered(more, timeout: .seconds(120)).count == more.count)
        again.cancel()
        _ = await again.result
        let all = try await h.read(h.output, count: 700, timeout: .seconds(30))
        let counts = Dictionary(grouping: all) { StageHarness.field("correlation_id", in: $0.value) ?? "" }.mapValues(\.count)
        #expect(all.count == 700)
        #expect(counts.values.allSatisfy { $0 == 1 }, "a message was answered twice after a graceful restart")
        await h.close()
    }
}
