import Foundation
import HallmarkKafka
import HallmarkRuntime
import Synchronization

/// The chain's internal hops carry messages in batches, as the aggregator's intake carries a
/// batch's token requests to the authority in one message and the joiner answers each of them
/// (DESIGN §2, batch carriers): per bundle, the broker sees what the pipeline makes it see.
extension BrokerFloor {
    /// Reads `count` messages from a started `consumer` and sends what arrived of each partition
    /// since the last send as one carrier to `topic`, at most one send per `pace`, by the rule
    /// a stage's batches follow (``BatchPace``: a message after a quiet spell waits for nothing). A carrier line is a
    /// message's key, when it was sent and a token's worth of padding.
    static func carry(
        _ count: Int, from consumer: some StageSource, to topic: String, with producer: KafkaProducer, pace: Duration
    ) async throws {
        let arrived = Mutex<[KafkaMessage]>([])
        let (signals, signal) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let reading = Task {
            var read = 0
            for await message in consumer.messages {
                arrived.withLock { $0.append(message) }
                signal.yield()
                read += 1
                if read == count { break }
            }
            signal.finish()
        }
        let pad = String(repeating: "t", count: 120)
        var acks: [KafkaDeliveryGroup] = []
        // The stages' own rule for when a batch may start.
        var pace = BatchPace(interval: pace)
        for await _ in signals {
            if let due = pace.due(at: .now) { try await Task.sleep(until: due) }
            let batch = arrived.withLock { taken in
                defer { taken.removeAll(keepingCapacity: true) }
                return taken
            }
            guard !batch.isEmpty else { continue }
            pace.started(at: .now)
            for (partition, messages) in Dictionary(grouping: batch, by: \.partition) {
                let lines = messages.map { message in
                    "\(String(decoding: message.key ?? [], as: UTF8.self))\t\(KafkaBench.sentNanos(message.value) ?? 0)\t\(pad)\n"
                }
                acks.append(
                    try await producer.enqueue([
                        .init(topic: topic, key: messages[0].key, value: Array(lines.joined().utf8))
                    ]))
                let next = messages.map(\.offset).max()! + 1
                try consumer.storeOffset(.init(topic: messages[0].topic, partition: partition), nextOffset: next)
            }
        }
        await reading.value
        for ack in acks { try await ack.wait() }
    }

    /// Reads carriers from a started `consumer` until `count` lines have come, and sends each
    /// line to `topic` as its own message, keyed as the message it stands for was (an answer
    /// per request).
    static func spread(
        _ count: Int, from consumer: some StageSource, to topic: String, with producer: KafkaProducer
    ) async throws {
        let pad = String(repeating: "a", count: 160)
        var acks: [KafkaDeliveryGroup] = []
        var spread = 0
        for await carrier in consumer.messages {
            let answers = carrier.value.split(separator: UInt8(ascii: "\n")).map { line in
                let fields = line.split(separator: UInt8(ascii: "\t"), maxSplits: 2)
                let sent = String(decoding: fields.count > 1 ? fields[1] : [], as: UTF8.self)
                return KafkaOutgoingMessage(
                    topic: topic, key: Array(fields.first ?? []),
                    value: Array(#"{"sent_ns":\#(sent),"pad":"\#(pad)"}"#.utf8))
            }
            acks.append(try await producer.enqueue(answers))
            try consumer.storeOffset(carrier.topicPartition, nextOffset: carrier.offset + 1)
            spread += answers.count
            if spread >= count { break }
        }
        for ack in acks { try await ack.wait() }
    }
}
