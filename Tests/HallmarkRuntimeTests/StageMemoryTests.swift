import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import HallmarkRuntime
import HallmarkStageTesting
import Logging
import Testing

/// The stage loop with no broker and no database (``MemoryBroker``): dispatch, order,
/// rejections, retries, a refused result, offsets and shutdown, in seconds. The real-broker
/// suites (`Stage loop, end to end`, `Batch stage against the real broker`) keep what needs
/// librdkafka and PostgreSQL: rebalances between members, SIGKILL, restarts of the server.
@Suite("Stage loop in memory", .timeLimit(.minutes(2)))
struct StageMemoryTests {
    static let input = "in", output = "out", rejected = "rejected"

    static func stage(
        _ broker: MemoryBroker, dispatch: StageDispatch, group: String = "g", maxMessageBytes: Int = 1 << 20,
        batchLinger: Duration = StageConfiguration.Variable.batchLinger.defaultValue,
        batchPace: Duration = StageConfiguration.Variable.batchPace.defaultValue,
        processor: EchoBatchProcessor = EchoBatchProcessor(output: output)
    ) -> Stage<EchoBatchProcessor> {
        var config = StageConfiguration(
            service: "memory-test", inputs: [StageInput(topic: input, schemas: [ProbeRequest.schemaName])],
            groupID: group, dispatch: dispatch, rejectedTopic: rejected, maxInFlight: 8, laneDepth: 4,
            maxBatch: 32, batchLinger: batchLinger, batchPace: batchPace, batchWorkers: 2, maxMessageBytes: maxMessageBytes,
            retry: RetryPolicy(initialDelay: .milliseconds(1), maxDelay: .milliseconds(4)))
        config.instance = "memory"
        return Stage(
            configuration: config, transport: broker.transport(maxMessageBytes: maxMessageBytes), database: nil,
            processor: processor, logger: Logger(label: "stage-memory-test"))
    }

    /// `perKey` requests on each of `keys` keys, numbered per key from `first`; their ids.
    @discardableResult
    static func produce(_ broker: MemoryBroker, keys: Int, perKey: Int, first: Int = 0) -> [MessageID] {
        var ids: [MessageID] = []
        for n in first..<(first + perKey) {
            for k in 0..<keys {
                let id = MessageID.random()
                ids.append(id)
                broker.produce(topic: input, key: "k\(k)", value: StageHarness.request(n: n, id: id))
            }
        }
        return ids
    }

    /// Runs the stage until `done`, then stops it as SIGTERM would (cancellation).
    static func run(_ stage: Stage<EchoBatchProcessor>, until done: () async -> Bool) async -> Bool {
        let running = Task { try await stage.run() }
        let finished = await done()
        running.cancel()
        _ = await running.result
        return finished
    }

    /// Each key's numbers, in the order answered.
    static func answers(_ broker: MemoryBroker) throws -> [String: [Int]] {
        var byKey: [String: [Int]] = [:]
        for m in broker.messages(in: output) {
            byKey[String(decoding: m.key ?? [], as: UTF8.self), default: []].append(try JSONReader.parse(m.value)["n"]!.integer!)
        }
        return byKey
    }

    @Test(arguments: [StageDispatch.keyLanes, .partitionBatches])
    func everyMessageIsAnsweredOnceInItsKeysOrder(dispatch: StageDispatch) async throws {
        let broker = MemoryBroker(defaultPartitions: 4)
        Self.produce(broker, keys: 10, perKey: 100)
        #expect(await Self.run(Self.stage(broker, dispatch: dispatch)) { await broker.waitFor(Self.output, count: 1000) })
        let answers = try Self.answers(broker)
        #expect(answers.count == 10 && answers.values.allSatisfy { $0 == Array(0..<100) })
        // Stopped after the last answer: each partition's offset is its end.
        let ends = Dictionary(grouping: broker.messages(in: Self.input), by: \.topicPartition).mapValues { Int64($0.count) }
        #expect(broker.committed(group: "g") == ends)
    }

    /// Group commit: a batch worker waits only for a batch at work, never for a timer, so a
    /// lone message at low load is answered at once even with an hour's linger. (A fixed
    /// linger held each one for it.)
    @Test func aLoneMessageIsNotHeldForTheBatchLinger() async throws {
        let broker = MemoryBroker()
        let stage = Self.stage(broker, dispatch: .partitionBatches, batchLinger: .seconds(3600))
        Self.produce(broker, keys: 1, perKey: 1)
        #expect(
            await Self.run(stage) {
                guard await broker.waitFor(Self.output, count: 1) else { return false }
                Self.produce(broker, keys: 1, perKey: 1, first: 1)
                return await broker.waitFor(Self.output, count: 2)
            })
        #expect(try Self.answers(broker) == ["k0": [0, 1]])
    }

    /// Pace: messages that come sooner after a worker's last batch than the pace wait for it
    /// and go together, so a stream pays a batch's fixed cost per pace, not per message. (With
    /// no pace the second message went alone, at once.)
    @Test func aStreamWithinThePaceGoesAsOneBatch() async throws {
        let broker = MemoryBroker(defaultPartitions: 1)
        let processor = EchoBatchProcessor(output: Self.output)
        let stage = Self.stage(
            broker, dispatch: .partitionBatches, batchLinger: .zero, batchPace: .seconds(3), processor: processor)
        Self.produce(broker, keys: 1, perKey: 1)
        var heldForThePace = false
        #expect(
            await Self.run(stage) {
                guard await broker.waitFor(Self.output, count: 1) else { return false }
                Self.produce(broker, keys: 1, perKey: 1, first: 1)
                // Held until the pace is due (3 s after the first batch), not answered at once.
                heldForThePace = !(await broker.waitFor(Self.output, count: 2, timeout: .milliseconds(500)))
                Self.produce(broker, keys: 1, perKey: 4, first: 2)
                return await broker.waitFor(Self.output, count: 6)
            })
        #expect(heldForThePace)
        #expect(processor.batches.all == [1, 5])
        #expect(try Self.answers(broker) == ["k0": Array(0..<6)])
    }

    @Test(arguments: [StageDispatch.keyLanes, .partitionBatches])
    func poisonIsRejectedAloneAndTheRestFlows(dispatch: StageDispatch) async throws {
        let broker = MemoryBroker()
        Self.produce(broker, keys: 4, perKey: 20)
        let always = MessageID.random(), reject = MessageID.random()
        broker.produce(topic: Self.input, key: "k0", value: Array("not json".utf8))
        broker.produce(topic: Self.input, key: "k1", value: StageHarness.request(n: 20, id: always, fail: "always"))
        broker.produce(topic: Self.input, key: "k2", value: StageHarness.request(n: 20, id: reject, fail: "reject"))
        broker.produce(topic: Self.input, key: "k3", value: Array(#"{"schema":"hallmark.probe.request.v1"}"#.utf8))
        Self.produce(broker, keys: 4, perKey: 20, first: 21)
        #expect(
            await Self.run(Self.stage(broker, dispatch: dispatch)) {
                let answered = await broker.waitFor(Self.output, count: 160)
                return await broker.waitFor(Self.rejected, count: 4) && answered
            })
        let records = try broker.messages(in: Self.rejected).map {
            try JSONCoding.decode(Message<RejectedRecord>.self, from: $0.value).body
        }
        #expect(
            Set(records.map(\.reason.rawValue)) == ["invalid_json", "processing_failed", "schema_violation", "invalid_envelope"])
        #expect(records.first { $0.reason == .processingFailed }?.originalID == always)
        #expect(records.first { $0.reason == .schemaViolation }?.originalID == reject)
        let answers = try Self.answers(broker)
        #expect(answers.values.allSatisfy { $0.filter { $0 != 20 } == Array(0..<20) + Array(21..<41) })
    }

    @Test func failedSendsAreRetriedAndNothingIsLostOrDoubled() async throws {
        let broker = MemoryBroker()
        Self.produce(broker, keys: 5, perKey: 40)
        broker.failNextSends(12)
        #expect(await Self.run(Self.stage(broker, dispatch: .keyLanes)) { await broker.waitFor(Self.output, count: 200) })
        #expect(try Self.answers(broker).values.allSatisfy { $0 == Array(0..<40) })
        #expect(broker.messages(in: Self.output).count == 200 && broker.messages(in: Self.rejected).isEmpty)
    }

    /// The broker refuses one result for good (its limit is below the producer's): that
    /// message gets a rejected record instead, and its neighbours their results, once. Key
    /// lanes keep each key's order through it; partition batches send the failed unit again
    /// behind the units already enqueued after it (docs/runtime.md says so), so there only
    /// the set is checked.
    @Test(arguments: [StageDispatch.keyLanes, .partitionBatches])
    func aResultTheBrokerRefusesBecomesARejectedRecord(dispatch: StageDispatch) async throws {
        let broker = MemoryBroker()
        Self.produce(broker, keys: 3, perKey: 30)
        broker.refuseMessages { $0.topic == Self.output && (try? JSONReader.parse($0.value)["n"]?.integer) == 13 }
        #expect(
            await Self.run(Self.stage(broker, dispatch: dispatch)) {
                let answered = await broker.waitFor(Self.output, count: 87)
                return await broker.waitFor(Self.rejected, count: 3) && answered
            })
        let records = try broker.messages(in: Self.rejected).map {
            try JSONCoding.decode(Message<RejectedRecord>.self, from: $0.value).body
        }
        #expect(records.count == 3 && records.allSatisfy { $0.reason == .oversized })
        let expected = Array(0..<13) + Array(14..<30)
        let answers = try Self.answers(broker)
        #expect(answers.count == 3 && broker.messages(in: Self.output).count == 87)
        if dispatch == .keyLanes {
            #expect(answers.values.allSatisfy { $0 == expected }, "\(answers)")
        } else {
            #expect(answers.values.allSatisfy { $0.sorted() == expected }, "\(answers)")
        }
    }

    /// A stop commits what was answered, so a second run on the same group answers only the
    /// messages that came after.
    @Test func aStopCommitsSoTheNextRunAnswersNothingTwice() async throws {
        let broker = MemoryBroker()
        Self.produce(broker, keys: 6, perKey: 25)
        #expect(await Self.run(Self.stage(broker, dispatch: .partitionBatches)) { await broker.waitFor(Self.output, count: 150) })
        Self.produce(broker, keys: 6, perKey: 25, first: 25)
        #expect(await Self.run(Self.stage(broker, dispatch: .keyLanes)) { await broker.waitFor(Self.output, count: 300) })
        #expect(broker.messages(in: Self.output).count == 300)
        #expect(try Self.answers(broker).values.allSatisfy { $0 == Array(0..<50) })
    }

    @Test func aMessageOverTheLimitIsRejectedOversizedAndAnsweredByID() async throws {
        let broker = MemoryBroker()
        let big = MessageID.random()
        var padded = StageHarness.request(n: 1, id: big)
        padded += Array(repeating: 0x20, count: 5000)
        broker.produce(topic: Self.input, key: "k0", value: StageHarness.request(n: 0))
        broker.produce(topic: Self.input, key: "k0", value: padded)
        broker.produce(topic: Self.input, key: "k0", value: StageHarness.request(n: 2))
        #expect(
            await Self.run(Self.stage(broker, dispatch: .keyLanes, maxMessageBytes: 4096)) {
                let answered = await broker.waitFor(Self.output, count: 2)
                return await broker.waitFor(Self.rejected, count: 1) && answered
            })
        let record = try JSONCoding.decode(Message<RejectedRecord>.self, from: broker.messages(in: Self.rejected)[0].value).body
        #expect(record.reason == .oversized && record.originalID == big)
        #expect(try Self.answers(broker)["k0"] == [0, 2])
    }
}
