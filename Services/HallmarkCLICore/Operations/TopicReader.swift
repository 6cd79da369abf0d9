import Foundation
import HallmarkKafka
import Logging

/// Reads topics from their beginning up to the end offsets they have when it starts, under a
/// consumer group of its own that never commits (so it changes nothing for anyone else).
struct TopicReader: Sendable {
    let kafka: KafkaConfiguration
    let logger: Logger

    /// Hands every message of `topics` to `each`, in order per partition; stops at the end
    /// offsets, or after `timeout` (a broker's end offsets can lag what it serves).
    /// - Returns: false when the timeout came first.
    @discardableResult
    func readToEnd(
        _ topics: [String], groupPrefix: String, timeout: Duration,
        each: (KafkaMessage) -> Void
    ) async throws -> Bool {
        var config = kafka
        config.properties["auto.offset.reset"] = "earliest"
        let consumer = try KafkaConsumer(
            configuration: config, groupID: "\(groupPrefix)-\(UUID().uuidString.lowercased())",
            topics: topics, logger: logger)
        var ends: [KafkaTopicPartition: Int64] = [:]
        for topic in topics {
            for (partition, end) in (try? await consumer.endOffsets(of: topic)) ?? [:] where end > 0 {
                ends[KafkaTopicPartition(topic: topic, partition: partition)] = end
            }
        }
        guard !ends.isEmpty else { await consumer.close(); return true }
        try consumer.start()
        let timer = Task {
            try? await Task.sleep(for: timeout)
            consumer.beginClose()
        }
        for await message in consumer.messages {
            each(message)
            // The end offsets asked for can lag (Tansu answers the last batch's first offset
            // + 1); the fetcher's own high watermark, seen with the message, does not.
            if let end = ends[message.topicPartition],
                message.offset + 1 >= max(end, consumer.highWatermarks()[message.topicPartition] ?? 0)
            {
                ends[message.topicPartition] = nil
            }
            if ends.isEmpty { break }
        }
        timer.cancel()
        await consumer.close()
        return ends.isEmpty
    }
}
