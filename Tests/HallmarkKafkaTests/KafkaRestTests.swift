import Foundation
import HallmarkTestSupport
import Synchronization
import Testing

@testable import HallmarkKafka

/// An idle consumer rests its fetching (``FetchRest``) against the real broker: what arrives
/// meanwhile is still read, once a check of the end offsets finds it, and a partition its
/// reader paused stays paused through every rest until the reader resumes it.
@Suite("A consumer at rest, against the real broker", .timeLimit(.minutes(3)))
struct KafkaRestTests {
    @Test func aRestingConsumerFindsWhatArrivesAndKeepsItsReadersPause() async throws {
        var config = KafkaTestSupport.configuration
        config.idleAfterMilliseconds = 200
        config.idleFetchIntervalMilliseconds = 100
        let topic = KafkaTestSupport.uniqueName("test.rest")
        try await KafkaAdmin(configuration: config, logger: KafkaTestSupport.logger).createTopics([topic], partitions: 1)
        let partition = KafkaTopicPartition(topic: topic, partition: 0)
        let consumer = try KafkaConsumer(
            configuration: config, groupID: KafkaTestSupport.uniqueName("test.rest"), topics: [topic],
            logger: KafkaTestSupport.logger)
        let pauses = consumer.native.pauses
        // Its traffic comes from elsewhere (wakesOnProduce is off): this test's own producing
        // must not wake it.
        #expect(!pauses.wakesOnProduce)
        try consumer.start()
        let producer = try KafkaProducer(configuration: config, logger: KafkaTestSupport.logger)
        let received = Received()
        let reader = Task {
            for await message in consumer.messages { received.add(String(decoding: message.value, as: UTF8.self)) }
        }
        defer { reader.cancel() }

        // Assigned, then at rest, checking its end offsets now and then.
        #expect(try await eventually { !consumer.native.assignment().isEmpty })
        let assignedChecks = pauses.checks.load(ordering: .relaxed)
        #expect(try await eventually { pauses.isResting && pauses.checks.load(ordering: .relaxed) >= assignedChecks + 2 })

        // What arrives during a rest is found by the next check.
        let beforeOne = pauses.checks.load(ordering: .relaxed)
        try await producer.send(topic: topic, key: nil, value: Array("one".utf8))
        #expect(try await eventually(timeout: .seconds(10)) { received.values == ["one"] })
        #expect(pauses.checks.load(ordering: .relaxed) > beforeOne, "found by a check, not by a wake-up")

        // The reader pauses its partition; rests come and go and never resume it.
        consumer.pause([partition])
        try await producer.send(topic: topic, key: nil, value: Array("two".utf8))
        let beforeTwo = pauses.checks.load(ordering: .relaxed)
        #expect(try await eventually { pauses.checks.load(ordering: .relaxed) >= beforeTwo + 4 })
        #expect(received.values == ["one"], "a paused partition was fetched during a rest")
        // Its resume wakes the consumer at once.
        consumer.resume([partition])
        #expect(try await eventually(timeout: .seconds(10)) { received.values == ["one", "two"] })

        // Busy again, it stays awake while messages keep coming, and loses none.
        for i in 0..<50 { try await producer.send(topic: topic, key: nil, value: Array("m\(i)".utf8)) }
        #expect(try await eventually(timeout: .seconds(20)) { received.values.count == 52 })
        #expect(received.values.suffix(50) == (0..<50).map { "m\($0)" })
        await producer.close()
        await consumer.close()
    }

    final class Received: Sendable {
        private let state = Mutex<[String]>([])
        func add(_ value: String) { state.withLock { $0.append(value) } }
        var values: [String] { state.withLock { $0 } }
    }
}
