import HallmarkKafka
import Logging

/// Reads a topic with a throwaway group and counts the messages that match.
package struct TopicWatcher {
    let consumer: KafkaConsumer

    package init(kafka: KafkaConfiguration, topic: String, logger: Logger) throws {
        consumer = try KafkaConsumer(
            configuration: kafka, groupID: "hallmark-traffic-\(MessageIDSeed.next())",
            topics: [topic], wakesOnProduce: true, logger: logger)
        try consumer.start()
    }

    /// Counts matching messages until `done(count)` or the timeout; then closes.
    package func collect(timeout: Duration, matching: ([UInt8]) -> Bool, until done: (Int) -> Bool) async -> Int {
        let consumer = self.consumer
        let timer = Task {
            try? await Task.sleep(for: timeout)
            consumer.beginClose()
        }
        var count = 0
        for await message in consumer.messages where matching(message.value) {
            count += 1
            if done(count) { break }
        }
        timer.cancel()
        await consumer.close()
        return count
    }
}

/// A short random token for throwaway group ids.
package enum MessageIDSeed {
    package static func next() -> String { String(UInt64.random(in: 0...UInt64.max), radix: 36) }
}
