import Foundation
import HallmarkKafka
import Logging

/// The Kafka keys of a topic's first messages (what the answer watcher does not keep).
enum TopicKeys {
    /// Reads `topic` from the start until `count` messages have come, or 60 s; returns their keys as text.
    static func read(_ topic: String, kafka: KafkaConfiguration, count: Int) async throws -> Set<String> {
        var config = kafka
        config.properties["auto.offset.reset"] = "earliest"
        let consumer = try KafkaConsumer(
            configuration: config, groupID: "test-keys-\(UInt64.random(in: 0...UInt64.max))",
            topics: [topic], logger: Logger(label: "topic-keys"))
        try consumer.start()
        let reader = Task {
            var keys = Set<String>(), seen = 0
            for await message in consumer.messages {
                if let key = message.key { keys.insert(String(decoding: key, as: UTF8.self)) }
                seen += 1
                if seen >= count { break }
            }
            return keys
        }
        // The reader ends at `count` messages; the deadline ends a reader that would wait for ever.
        let deadline = Task {
            try? await Task.sleep(for: .seconds(60))
            consumer.beginClose()
        }
        let keys = await reader.value
        deadline.cancel()
        consumer.beginClose()
        await consumer.close()
        return keys
    }
}
