import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkKafka
import HallmarkRuntime
import Logging
import ServiceLifecycle
import Synchronization

/// The phases of `hallmark bench kafka`.
struct KafkaBench {
    let kafka: KafkaConfiguration
    let producer: KafkaProducer
    let logger: Logger
    let size: Int
    /// Distinct keys: per-key order caps the stage's parallelism at the keys in flight.
    let keys: Int

    /// A valid probe-style envelope padded to `size` bytes, carrying its send time.
    func message(_ n: Int, sentNanos: UInt64 = 0) -> [UInt8] {
        let head =
            #"{"schema":"hallmark.bench.v1","id":"\#(MessageID.random())","produced_at":"\#(Timestamp.now().text)","n":\#(n),"sent_ns":\#(sentNanos),"pad":""#
        let padding = max(0, size - head.utf8.count - 2)
        return Array((head + String(repeating: "x", count: padding) + "\"}").utf8)
    }

    /// Sends `count` messages with up to `window` awaiting acknowledgement; msgs/s.
    func produce(count: Int, topic: String, window: Int) async throws -> Double {
        let payloads = (0..<min(count, 1000)).map { message($0) }
        // Warm up: topic metadata and the idempotent producer id are fetched before timing.
        try await producer.send(topic: topic, key: nil, value: message(-1))
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<count {
                if i >= window { try await group.next() }
                let value = payloads[i % payloads.count]
                group.addTask { try await producer.send(topic: topic, key: Array("k\(i % keys)".utf8), value: value) }
            }
            try await group.waitForAll()
        }
        return Double(count) / (ContinuousClock.now - start).seconds
    }

    /// Reads `count` messages with a fresh group, storing each offset; msgs/s from the first.
    func consume(count: Int, topic: String) async throws -> Double {
        let consumer = try KafkaConsumer(
            configuration: kafka, groupID: "bench-raw-\(UUID())", topics: [topic],
            bufferCapacity: 4096, wakesOnProduce: true, logger: logger)
        try consumer.start()
        var seen = 0
        var start: ContinuousClock.Instant?
        for await message in consumer.messages {
            if start == nil { start = .now }
            try consumer.storeOffset(message.topicPartition, nextOffset: message.offset + 1)
            seen += 1
            if seen == count { break }
        }
        let elapsed = ContinuousClock.now - (start ?? .now)
        await consumer.close()
        return Double(count - 1) / elapsed.seconds
    }

    /// Drains `count` backlog messages through a stage whose processor echoes; msgs/s from
    /// the first message processed (like the raw consume rate, it leaves out the group join).
    func stageThroughput(
        count: Int, input: String, output: String, inFlight: Int, dispatch: StageDispatch = .keyLanes
    ) async throws -> Double {
        let processor = EchoProcessor(output: output, target: count)
        _ = try await runStage(processor, input: input, inFlight: inFlight, dispatch: dispatch) {
            await processor.done.wait()
        }
        let elapsed = processor.finished.withLock { $0 }! - processor.started.withLock { $0 }!
        return Double(count - 1) / elapsed.seconds
    }

    func pace(total: Int, rate: Int, topic: String) async throws {
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<total {
                let due = start + .nanoseconds(Int64(i) * 1_000_000_000 / Int64(rate))
                if due > .now { try await Task.sleep(until: due) }
                let value = message(i, sentNanos: DispatchTime.now().uptimeNanoseconds)
                group.addTask { try await producer.send(topic: topic, key: Array("k\(i % keys)".utf8), value: value) }
            }
            try await group.waitForAll()
        }
    }

    /// Runs a stage until `body` returns, then shuts it down; returns the body's duration.
    func runStage(
        _ processor: EchoProcessor, input: String, inFlight: Int, dispatch: StageDispatch = .keyLanes,
        _ body: () async throws -> Void
    ) async throws -> Duration {
        var config = StageConfiguration(
            service: "bench", inputs: [StageInput(topic: input, schemas: [BenchMessage.schemaName])],
            groupID: "bench-stage-\(UUID())", dispatch: dispatch, maxInFlight: inFlight)
        config.instance = "bench"
        config.maxMessageBytes = kafka.maxMessageBytes
        let stage = Stage(
            configuration: config, kafka: kafka, producer: producer, database: nil,
            processor: processor, logger: logger)
        let task = Task { try await stage.run() }
        let start = ContinuousClock.now
        try await body()
        let elapsed = ContinuousClock.now - start
        task.cancel()
        try await task.value
        return elapsed
    }

    static func sentNanos(_ value: [UInt8]) -> UInt64? {
        guard let range = String(decoding: value.prefix(400), as: UTF8.self).range(of: #""sent_ns":"#) else { return nil }
        let text = String(decoding: value.prefix(400), as: UTF8.self)[range.upperBound...]
        return UInt64(text.prefix { $0.isNumber })
    }
}

/// The no-op processor: echoes each message to the output topic.
final class EchoProcessor: StageProcessor {
    typealias Prepared = StageMessage
    let output: String
    let target: Int
    let count = Atomic<Int>(0)
    let done = Latch()
    let started = Mutex<ContinuousClock.Instant?>(nil)
    let finished = Mutex<ContinuousClock.Instant?>(nil)

    init(output: String, target: Int) {
        self.output = output
        self.target = target
    }

    func commit(_ batch: [StageMessage], context: StageCommitContext) async throws -> [StageVerdict] {
        started.withLock { if $0 == nil { $0 = .now } }
        defer {
            let n = count.add(batch.count, ordering: .relaxed).newValue
            if n >= target && n - batch.count < target {
                finished.withLock { $0 = .now }
                done.release()
            }
        }
        return batch.map { .outputs([StageOutput(topic: output, key: $0.kafka.key, value: $0.value)]) }
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
