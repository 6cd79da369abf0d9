import Foundation
import HallmarkKafka
import HallmarkRuntime

/// The broker's own floor: a hop without the stage runtime, so a service's figures can be
/// read against what Tansu (or Kafka) and librdkafka cost on this machine by themselves.
extension KafkaBench {
    /// What sits between a paced sender and the reader that measures latency.
    enum Hop {
        /// Nothing: the reader reads the topic the sender writes (one produce and one fetch).
        case none
        /// A bare consumer that re-produces each message: no schema check, no batch, no
        /// transaction (``forward(count:input:output:)``).
        case raw
        /// The stage runtime with a processor that echoes (``EchoProcessor``).
        case stage(inFlight: Int)

        var name: String {
            switch self {
            case .none: "broker, no hop"
            case .raw: "raw forward"
            case .stage: "stage loop"
            }
        }
    }

    /// Forwards `count` messages from `input` to `output` with a bare consumer and the shared
    /// producer, storing each offset as it goes.
    /// - Returns: msgs/s from the first message read to the last acknowledgement.
    func forward(count: Int, input: String, output: String) async throws -> Double {
        let consumer = try KafkaConsumer(
            configuration: kafka, groupID: "bench-forward-\(UUID())", topics: [input],
            bufferCapacity: 4096, logger: logger)
        try consumer.start()
        let start = try await Self.forward(count, from: consumer, to: output, with: producer)
        let elapsed = ContinuousClock.now - (start ?? .now)
        await consumer.close()
        return Double(count - 1) / elapsed.seconds
    }

    /// Re-produces `count` messages from a started `consumer` to `topic` with `producer`,
    /// storing each offset as it goes, and waits for every acknowledgement (the raw forward,
    /// and the carriers' hop of ``BrokerFloor``'s chain, which passes `.max` and ends when its
    /// consumer closes).
    /// - Returns: when the first message arrived (nil if the consumer closed before one did).
    static func forward(
        _ count: Int, from consumer: some StageSource, to topic: String, with producer: KafkaProducer
    ) async throws -> ContinuousClock.Instant? {
        var acks: [KafkaDeliveryGroup] = []
        acks.reserveCapacity(min(count, 1 << 16))
        var start: ContinuousClock.Instant?
        for await message in consumer.messages {
            if start == nil { start = .now }
            acks.append(try await producer.enqueue([.init(topic: topic, key: message.key, value: message.value)]))
            try consumer.storeOffset(message.topicPartition, nextOffset: message.offset + 1)
            if acks.count == count { break }
        }
        for ack in acks { try await ack.wait() }
        return start
    }

    /// Sends `rate` messages a second for `seconds` into `input` and measures send → read
    /// latency where `hop` leaves them (`input` itself for ``Hop/none``, else `output`).
    func latency(
        rate: Int, seconds: Int, input: String, output: String, hop: Hop
    ) async throws -> (p50: Double, p99: Double, count: Int) {
        let total = rate * seconds
        let reader = try KafkaConsumer(
            configuration: kafka, groupID: "bench-lat-\(UUID())",
            topics: [{ if case .none = hop { input } else { output } }()],
            bufferCapacity: 4096, wakesOnProduce: true, logger: logger)
        try reader.start()
        var latencies: [Double] = []
        let measure = {
            try? await Task.sleep(for: .seconds(2))  // let the groups settle before pacing
            async let sending: Void = pace(total: total, rate: rate, topic: input)
            for await message in reader.messages {
                let now = DispatchTime.now().uptimeNanoseconds
                if let sent = Self.sentNanos(message.value), sent > 0 { latencies.append(Double(now - sent) / 1e6) }
                if latencies.count == total { break }
            }
            try? await sending
        }
        switch hop {
        case .none:
            await measure()
        case .raw:
            async let forwarded = forward(count: total, input: input, output: output)
            await measure()
            _ = try await forwarded
        case .stage(let inFlight):
            let processor = EchoProcessor(output: output, target: total)
            _ = try await runStage(processor, input: input, inFlight: inFlight) { await measure() }
        }
        await reader.close()
        let p = BenchExchange.percentiles(latencies)
        return (p.p50, p.p99, latencies.count)
    }
}
