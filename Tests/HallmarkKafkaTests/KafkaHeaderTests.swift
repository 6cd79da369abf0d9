import HallmarkKafka
import HallmarkTestSupport
import Testing

/// Record headers through the real broker: a message's own headers, then the producer's stamp,
/// in order, on both ways of producing; a consumer reads them only when asked to.
@Suite("Kafka record headers", .timeLimit(.minutes(2)))
struct KafkaHeaderTests {
    @Test func headersReachAConsumerThatReadsThemInOrder() async throws {
        let config = KafkaTestSupport.configuration
        let topic = KafkaTestSupport.uniqueName("test.headers")
        try await KafkaAdmin(configuration: config, logger: KafkaTestSupport.logger).createTopics([topic], partitions: 1)
        // The stamp sees each message's topic and value; a value it does not describe gets none.
        let producer = try KafkaProducer(
            configuration: config, logger: KafkaTestSupport.logger,
            stamp: { topic, value in
                value == Array("plain".utf8)
                    ? [] : [KafkaHeader("stamp", text: "\(topic):\(value.count)"), KafkaHeader("stamp", [0, 255])]
            })
        let own = [KafkaHeader("content-type", text: "application/json"), KafkaHeader("empty", [])]
        try await producer.send([
            KafkaOutgoingMessage(topic: topic, key: Array("k".utf8), value: Array("first".utf8), headers: own),
            KafkaOutgoingMessage(topic: topic, key: nil, value: Array("plain".utf8)),
        ])
        try await producer.send(topic: topic, key: nil, value: Array("third".utf8))
        await producer.close()

        func read(headers: Bool) async throws -> [KafkaMessage] {
            let consumer = try KafkaConsumer(
                configuration: config, groupID: KafkaTestSupport.uniqueName("test.headers.group"), topics: [topic],
                readsHeaders: headers, logger: KafkaTestSupport.logger)
            try consumer.start()
            var messages: [KafkaMessage] = []
            for await message in consumer.messages {
                messages.append(message)
                if messages.count == 3 { break }
            }
            await consumer.close()
            return messages
        }
        let messages = try await read(headers: true)
        #expect(messages.map { String(decoding: $0.value, as: UTF8.self) } == ["first", "plain", "third"])
        #expect(
            messages[0].headers == own + [KafkaHeader("stamp", text: "\(topic):5"), KafkaHeader("stamp", [0, 255])])
        #expect(messages[1].headers.isEmpty)
        #expect(messages[2].headers == [KafkaHeader("stamp", text: "\(topic):5"), KafkaHeader("stamp", [0, 255])])
        #expect(messages[0].key == Array("k".utf8))
        // A consumer that does not ask for headers (a stage) gets none.
        #expect(try await read(headers: false).allSatisfy { $0.headers.isEmpty })
    }
}
