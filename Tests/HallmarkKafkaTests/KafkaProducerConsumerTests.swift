import Foundation
import HallmarkKafka
import HallmarkTestSupport
import Testing

@Suite("Kafka against the real broker", .timeLimit(.minutes(5)))
struct KafkaProducerConsumerTests {
    @Test func loadedLibrdkafkaIsSupported() throws {
        #expect(KafkaLibrary.version >= KafkaLibrary.minimumVersion, "loaded \(KafkaLibrary.versionString)")
        try KafkaLibrary.requireSupportedVersion()
    }

    @Test func createTopicsIsIdempotent() async throws {
        let admin = KafkaAdmin(configuration: KafkaTestSupport.configuration, logger: KafkaTestSupport.logger)
        let topic = KafkaTestSupport.uniqueName("test.admin")
        #expect(try await admin.createTopics([topic], partitions: 3) == [topic])
        #expect(try await admin.createTopics([topic], partitions: 3) == [])
    }

    @Test func producedMessagesAreConsumedInKeyOrderAndCommitted() async throws {
        let config = KafkaTestSupport.configuration
        let topic = KafkaTestSupport.uniqueName("test.roundtrip")
        try await KafkaAdmin(configuration: config, logger: KafkaTestSupport.logger).createTopics([topic], partitions: 3)

        let producer = try KafkaProducer(configuration: config, logger: KafkaTestSupport.logger)
        let count = 300
        try await withThrowingTaskGroup(of: KafkaDeliveryReport.self) { group in
            for i in 0..<count {
                group.addTask {
                    try await producer.send(topic: topic, key: Array("key-\(i % 7)".utf8), value: Array("\(i)".utf8))
                }
            }
            for try await report in group { #expect(report.offset >= 0) }
        }
        await producer.close()

        let group = KafkaTestSupport.uniqueName("test.group")
        let consumer = try KafkaConsumer(
            configuration: config, groupID: group, topics: [topic],
            logger: KafkaTestSupport.logger)
        try consumer.start()
        var seen: [String: [Int]] = [:]
        var lastOffset: [KafkaTopicPartition: Int64] = [:]
        var received = 0
        for await message in consumer.messages {
            let key = String(decoding: message.key ?? [], as: UTF8.self)
            seen[key, default: []].append(Int(String(decoding: message.value, as: UTF8.self))!)
            if let previous = lastOffset[message.topicPartition] { #expect(message.offset > previous) }
            lastOffset[message.topicPartition] = message.offset
            try consumer.storeOffset(message.topicPartition, nextOffset: message.offset + 1)
            received += 1
            if received == count { break }
        }
        try await consumer.commit()
        let committed = try await consumer.committedOffsets(Array(lastOffset.keys))
        await consumer.close()

        #expect(received == count)
        #expect(seen.values.reduce(0) { $0 + $1.count } == count)
        // Every message was sent concurrently, so only the set matters, but each key's messages
        // landed in one partition and were read in offset order (checked above).
        #expect(Set(seen.values.flatMap { $0 }) == Set(0..<count))
        for (partition, offset) in lastOffset { #expect(committed[partition] == offset + 1) }
    }

    /// Each message carries the time its producer was handed it (CreateTime), in wall-clock
    /// milliseconds: consumer lag and the benches' per-hop times rest on it. Messages sent
    /// 50 ms apart must read back in that order, that far apart, within the sending window.
    @Test func consumedMessagesCarryTheirCreateTimes() async throws {
        let config = KafkaTestSupport.configuration
        let topic = KafkaTestSupport.uniqueName("test.timestamps")
        try await KafkaAdmin(configuration: config, logger: KafkaTestSupport.logger).createTopics([topic], partitions: 1)
        let producer = try KafkaProducer(configuration: config, logger: KafkaTestSupport.logger)
        func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
        var sent: [(before: Int64, after: Int64)] = []
        for i in 0..<4 {
            if i > 0 { try await Task.sleep(for: .milliseconds(50)) }
            let before = now()
            try await producer.send(topic: topic, key: nil, value: Array("\(i)".utf8))
            sent.append((before, now()))
        }
        await producer.close()
        let consumer = try KafkaConsumer(
            configuration: config, groupID: KafkaTestSupport.uniqueName("test.timestamps"), topics: [topic],
            logger: KafkaTestSupport.logger)
        try consumer.start()
        var stamps: [Int64] = []
        for await message in consumer.messages {
            stamps.append(try #require(message.timestampMilliseconds))
            if stamps.count == sent.count { break }
        }
        await consumer.close()
        try #require(stamps.count == sent.count)
        for (stamp, window) in zip(stamps, sent) {
            #expect(stamp >= window.before - 1 && stamp <= window.after + 1, "\(stamp) outside \(window)")
        }
        for i in 1..<stamps.count { #expect(stamps[i] - stamps[i - 1] >= 45) }
    }

    /// A consumer closed with fetched messages still unread must release cleanly (its buffer
    /// semaphore is below capacity then; libdispatch traps on such a semaphore if mishandled).
    @Test func consumerClosedMidStreamIsReleasedCleanly() async throws {
        let config = KafkaTestSupport.configuration
        let topic = KafkaTestSupport.uniqueName("test.midstream")
        try await KafkaAdmin(configuration: config, logger: KafkaTestSupport.logger).createTopics([topic], partitions: 1)
        let producer = try KafkaProducer(configuration: config, logger: KafkaTestSupport.logger)
        for i in 0..<200 { try await producer.send(topic: topic, key: nil, value: Array("\(i)".utf8)) }
        await producer.close()
        for round in 0..<3 {
            var consumer: KafkaConsumer? = try KafkaConsumer(
                configuration: config, groupID: KafkaTestSupport.uniqueName("test.midstream.\(round)"), topics: [topic],
                bufferCapacity: 16, logger: KafkaTestSupport.logger)
            try consumer?.start()
            var first: KafkaMessage?
            for await message in consumer!.messages { first = message; break }
            #expect(first?.offset == 0)
            await consumer?.close()
            consumer = nil
        }
    }

    @Test func sendFailsWithTypedErrorWhenBrokerIsUnreachable() async throws {
        var config = KafkaConfiguration(brokers: "127.0.0.1:1")
        config.properties = ["message.timeout.ms": "300", "log_level": "0"]
        let producer = try KafkaProducer(configuration: config, logger: KafkaTestSupport.logger)
        await #expect(throws: KafkaError.self) {
            try await producer.send(topic: "nowhere", key: nil, value: [1, 2, 3])
        }
        await producer.close(timeout: .seconds(1))
    }

    /// Groups enqueued one after another keep each key's order across groups, and a group's
    /// single wait covers all of its messages.
    @Test func enqueuedGroupsAreAcknowledgedTogetherAndKeepKeyOrder() async throws {
        let config = KafkaTestSupport.configuration
        let topic = KafkaTestSupport.uniqueName("test.groups")
        try await KafkaAdmin(configuration: config, logger: KafkaTestSupport.logger).createTopics([topic], partitions: 3)
        let producer = try KafkaProducer(configuration: config, logger: KafkaTestSupport.logger)
        var groups: [KafkaDeliveryGroup] = []
        for g in 0..<4 {
            let batch = (0..<250).map { i in
                KafkaOutgoingMessage(topic: topic, key: Array("key-\(i % 5)".utf8), value: Array("\(g * 250 + i)".utf8))
            }
            groups.append(try await producer.enqueue(batch))
        }
        for group in groups { try await group.wait() }
        // librdkafka counts a message out of its queue a moment after its report is served.
        #expect(try await eventually(timeout: .seconds(10)) { producer.queueLength == 0 })
        try await producer.send([])  // an empty group is acknowledged at once
        await producer.close()

        let consumer = try KafkaConsumer(
            configuration: config, groupID: KafkaTestSupport.uniqueName("test.groups"),
            topics: [topic], logger: KafkaTestSupport.logger)
        try consumer.start()
        var seen: [String: [Int]] = [:]
        var received = 0
        for await message in consumer.messages {
            seen[String(decoding: message.key ?? [], as: UTF8.self), default: []]
                .append(Int(String(decoding: message.value, as: UTF8.self))!)
            received += 1
            if received == 1000 { break }
        }
        await consumer.close()
        #expect(received == 1000)
        for (key, values) in seen { #expect(values == values.sorted(), "key \(key) out of order") }
        #expect(Set(seen.values.flatMap { $0 }) == Set(0..<1000))
    }

    @Test func groupWaitFailsWithTypedErrorWhenBrokerIsUnreachable() async throws {
        var config = KafkaConfiguration(brokers: "127.0.0.1:1")
        config.properties = ["message.timeout.ms": "300", "log_level": "0"]
        let producer = try KafkaProducer(configuration: config, logger: KafkaTestSupport.logger)
        let group = try await producer.enqueue(
            (0..<10).map { KafkaOutgoingMessage(topic: "nowhere", key: nil, value: [UInt8($0)]) })
        let error = await #expect(throws: KafkaError.self) { try await group.wait() }
        #expect(error?.code == .delivery)
        await producer.close(timeout: .seconds(1))
    }
}
