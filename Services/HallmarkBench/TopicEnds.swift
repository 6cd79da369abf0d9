import Foundation
import HallmarkKafka
import Logging

/// How many messages each topic holds: the sum of its partitions' end offsets, as a fetch
/// sees them. Asked for directly (ListOffsets), Tansu answers the last batch's first offset
/// + 1, which misses most of a burst's last batches; a fetch's high watermark does not.
enum TopicEnds {
    /// Joins a group of its own at the topics' ends, lets the fetcher see every partition's
    /// high watermark, and leaves.
    static func read(_ topics: [String], kafka: KafkaConfiguration, logger: Logger) async throws -> [String: Int64] {
        var config = kafka
        config.properties["auto.offset.reset"] = "latest"
        let consumer = try KafkaConsumer(
            configuration: config, groupID: "bench-ends-\(UUID().lowercasedText)", topics: topics, logger: logger)
        var partitions = 0
        for topic in topics { partitions += try await consumer.endOffsets(of: topic).count }
        try consumer.start()
        let drain = Task { for await _ in consumer.messages {} }
        defer { drain.cancel() }
        let deadline = ContinuousClock.now + .seconds(30)
        while consumer.highWatermarks().count < partitions, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        // A few more fetches: the first watermark of a partition can be the reset's answer.
        try await Task.sleep(for: .milliseconds(300))
        let ends = consumer.highWatermarks()
        await consumer.close()
        guard ends.count == partitions else { throw BenchError("no high watermark for some of \(topics.count) topics") }
        return ends.reduce(into: [:]) { $0[$1.key.topic, default: 0] += $1.value }
    }
}
