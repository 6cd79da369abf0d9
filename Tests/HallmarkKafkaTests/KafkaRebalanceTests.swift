import Foundation
import HallmarkKafka
import HallmarkTestSupport
import Synchronization
import Testing

@Suite("Kafka rebalances against the real broker", .timeLimit(.minutes(3)))
struct KafkaRebalanceTests {
    /// A member's partitions as its rebalance listener last heard them (eager: each assignment
    /// is the whole set, each revocation empties it).
    final class Assignment: Sendable {
        let held = Mutex<Set<KafkaTopicPartition>>([])
        var listener: @Sendable (KafkaRebalanceEvent) -> Void {
            { [self] event in
                held.withLock { $0 = event.kind == .assigned ? Set(event.partitions) : [] }
            }
        }
        var partitions: Set<KafkaTopicPartition> { held.withLock { $0 } }
    }

    /// A service's rebalance log lines, replayed in order, give the partitions it holds now;
    /// other lines, and lines that are not JSON, are passed over.
    @Test func theAssignmentLogReplaysRebalances() {
        func line(_ msg: String, _ partitions: [String]) -> String {
            let list = "[" + partitions.map { "\\\"\($0)\\\"" }.joined(separator: ", ") + "]"
            return #"{"level":"info","msg":"\#(msg)","partitions":"\#(list)"}"#
        }
        let log = [
            line("partitions assigned", ["t/0", "t/1", "u/0"]), #"{"msg":"stage started"}"#, "not json",
            line("partitions revoked", ["t/0", "t/1", "u/0"]), line("partitions assigned", ["t/1", "u/0"]),
        ].joined(separator: "\n")
        #expect(KafkaAssignmentLog.held(in: log) == ["t/1", "u/0"])
        #expect(KafkaAssignmentLog.held(in: log + "\n" + line("partitions revoked", ["t/1", "u/0"])).isEmpty)
        #expect(KafkaAssignmentLog.held(in: "").isEmpty)
    }

    /// librdkafka keeps a partition's pause across revocation. A stage pauses a partition whose
    /// lane is full and drops what it had parked when the partition is revoked; if the same
    /// member got the partition back still paused, nothing would ever resume it and the
    /// partition would stall for good. So every assignment starts unpaused.
    @Test func aPartitionPausedWhenRevokedComesBackUnpaused() async throws {
        let config = KafkaTestSupport.configuration
        let logger = KafkaTestSupport.logger
        let topic = KafkaTestSupport.uniqueName("test.repause")
        try await KafkaAdmin(configuration: config, logger: logger).createTopics([topic], partitions: 2)
        let group = KafkaTestSupport.uniqueName("test.repause")
        let all: Set = [KafkaTopicPartition(topic: topic, partition: 0), KafkaTopicPartition(topic: topic, partition: 1)]

        let a = Assignment()
        let consumer = try KafkaConsumer(
            configuration: config, groupID: group, topics: [topic], logger: logger,
            rebalanceListener: a.listener)
        try consumer.start()
        let received = Mutex<[KafkaMessage]>([])
        let reader = Task { for await m in consumer.messages { received.withLock { $0.append(m) } } }
        #expect(try await eventually(timeout: .seconds(60)) { a.partitions == all }, "never assigned")
        consumer.pause(Array(all))

        // A second member joins (both partitions are revoked, one comes back) and leaves (both
        // come back): each was paused when it was revoked.
        let b = Assignment()
        let other = try KafkaConsumer(
            configuration: config, groupID: group, topics: [topic], logger: logger,
            rebalanceListener: b.listener)
        try other.start()
        #expect(
            try await eventually(timeout: .seconds(60)) { !b.partitions.isEmpty && a.partitions.count == 1 },
            "the second member never got a partition")
        await other.close()
        #expect(try await eventually(timeout: .seconds(60)) { a.partitions == all }, "the partitions never came back")

        let producer = try KafkaProducer(configuration: config, logger: logger)
        var sentTo = Set<Int32>()
        for i in 0..<40 {
            sentTo.insert(try await producer.send(topic: topic, key: Array("key-\(i)".utf8), value: Array("\(i)".utf8)).partition)
        }
        await producer.close()
        #expect(sentTo == [0, 1])
        #expect(
            try await eventually(timeout: .seconds(30)) { received.withLock { $0.count } == 40 },
            "got \(received.withLock { $0.count }) of 40: a re-assigned partition stayed paused")
        await consumer.close()
        await reader.value
        #expect(Set(received.withLock { $0.map(\.partition) }) == [0, 1])
    }
}
