import Foundation
import HallmarkKafka
import HallmarkTestSupport
import Testing

/// ``KafkaProducer/enqueue(_:then:)``: told once, when every message is acknowledged or with the
/// first failure, with no task of the caller's waiting; a full local queue is waited out.
@Suite("Kafka producer callbacks", .timeLimit(.minutes(2)))
struct KafkaProducerCallbackTests {
    /// The result `enqueue(_:then:)` reports, and how many times it reported.
    static func enqueued(
        _ producer: KafkaProducer, _ messages: [KafkaOutgoingMessage]
    ) async -> Result<Void, any Error> {
        await withCheckedContinuation { continuation in
            producer.enqueue(messages) { continuation.resume(returning: $0) }
        }
    }

    @Test func toldOnceEveryMessageIsAcknowledgedAndAFullQueueIsWaitedOut() async throws {
        var config = KafkaTestSupport.configuration
        // Room for 5: the rest waits for acknowledgements to make room.
        config.properties["queue.buffering.max.messages"] = "5"
        config.properties["batch.num.messages"] = "5"
        let topic = KafkaTestSupport.uniqueName("test.callbacks")
        try await KafkaAdmin(configuration: config, logger: KafkaTestSupport.logger).createTopics([topic], partitions: 2)
        let producer = try KafkaProducer(configuration: config, logger: KafkaTestSupport.logger)
        let messages = (0..<40).map {
            KafkaOutgoingMessage(topic: topic, key: Array("k\($0 % 3)".utf8), value: Array("\($0)".utf8))
        }
        let result = await Self.enqueued(producer, messages)
        #expect(throws: Never.self) { try result.get() }
        #expect(try await eventually(timeout: .seconds(10)) { producer.queueLength == 0 })
        // An empty list is acknowledged at once.
        let empty = await Self.enqueued(producer, [])
        #expect(throws: Never.self) { try empty.get() }
        await producer.close()

        let consumer = try KafkaConsumer(
            configuration: config, groupID: KafkaTestSupport.uniqueName("test.callbacks"), topics: [topic],
            logger: KafkaTestSupport.logger)
        try consumer.start()
        var seen: Set<Int> = []
        for await message in consumer.messages {
            seen.insert(Int(String(decoding: message.value, as: UTF8.self))!)
            if seen.count == messages.count { break }
        }
        await consumer.close()
        #expect(seen == Set(0..<40))
    }

    @Test func anOversizedMessageIsRefusedAtOnceAndAnUnreachableBrokerAfterItsTimeout() async throws {
        var config = KafkaConfiguration(brokers: "127.0.0.1:1")
        config.properties = ["message.timeout.ms": "300", "log_level": "0"]
        let producer = try KafkaProducer(configuration: config, logger: KafkaTestSupport.logger)
        let big = KafkaOutgoingMessage(
            topic: "nowhere", key: nil, value: [UInt8](repeating: 1, count: producer.maxMessageBytes + 1))
        let refused = await Self.enqueued(producer, [big])
        #expect((refused.failure as? KafkaError)?.code == .oversized)
        let lost = await Self.enqueued(
            producer, (0..<3).map { KafkaOutgoingMessage(topic: "nowhere", key: nil, value: [UInt8($0)]) })
        #expect((lost.failure as? KafkaError)?.code == .delivery)
        await producer.close(timeout: .seconds(1))
    }
}

extension Result {
    /// The error, or nil on success.
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
