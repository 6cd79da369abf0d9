import Foundation
import HallmarkTestSupport
import Synchronization
import Testing

@testable import HallmarkKafka

@Suite("One consumer shared by a process's stages, against the real broker", .timeLimit(.minutes(4)))
struct SharedConsumerTests {
    /// What one reader was handed and heard of its assignment.
    final class Received: Sendable {
        let messages = Mutex<[KafkaMessage]>([])
        let heard = Mutex<Set<KafkaTopicPartition>>([])
        var listener: @Sendable (KafkaRebalanceEvent) -> Void {
            { [self] event in
                heard.withLock { $0 = event.kind == .assigned ? $0.union(event.partitions) : $0.subtracting(event.partitions) }
            }
        }
        var count: Int { messages.withLock { $0.count } }
        func read(_ reader: SharedConsumer.Reader) -> Task<Void, Never> {
            Task { for await m in reader.messages { messages.withLock { $0.append(m) } } }
        }
    }

    static let ignore: @Sendable (KafkaRebalanceEvent) -> Void = { _ in }

    static func topics(_ prefix: String, partitions: Int = 2) async throws -> [String] {
        let names = [KafkaTestSupport.uniqueName("\(prefix).a"), KafkaTestSupport.uniqueName("\(prefix).b")]
        try await KafkaAdmin(configuration: KafkaTestSupport.configuration, logger: KafkaTestSupport.logger)
            .createTopics(names, partitions: partitions)
        return names
    }

    static func send(_ count: Int, to topic: String, from first: Int = 0) async throws {
        let producer = try KafkaProducer(configuration: KafkaTestSupport.configuration, logger: KafkaTestSupport.logger)
        for i in first..<(first + count) {
            _ = try await producer.send(topic: topic, key: Array("k\(i)".utf8), value: Array("\(i)".utf8))
        }
        await producer.close()
    }

    /// Two started readers of a new shared group, one per topic, and what each gets.
    static func twoReaders(
        _ config: KafkaConfiguration, _ prefix: String, _ a: String, _ b: String, bufferCapacity: Int
    ) throws -> (SharedConsumer.Reader, SharedConsumer.Reader, Received, Received) {
        let group = KafkaTestSupport.uniqueName(prefix)
        let shared = SharedConsumer(configuration: config, groupID: group, logger: KafkaTestSupport.logger)
        let members = [a, b].map {
            SharedConsumer.Member(groupID: group, topics: [$0], bufferCapacity: bufferCapacity, wakesOnProduce: false)
        }
        try shared.declare(members)
        let (gotA, gotB) = (Received(), Received())
        let readerA = try #require(shared.open(members[0], rebalanceListener: gotA.listener))
        let readerB = try #require(shared.open(members[1], rebalanceListener: gotB.listener))
        try readerA.start()
        try readerB.start()
        return (readerA, readerB, gotA, gotB)
    }

    /// Each topic's committed offsets in `group`, summed per topic.
    static func committed(_ group: String, _ topics: [String], partitions: Int32 = 2) async throws -> [String: Int64] {
        let probe = try KafkaConsumer(
            configuration: KafkaTestSupport.configuration, groupID: group, topics: topics, logger: KafkaTestSupport.logger)
        let all = topics.flatMap { t in (0..<partitions).map { KafkaTopicPartition(topic: t, partition: $0) } }
        var sums: [String: Int64] = [:]
        for (partition, offset) in try await probe.committedOffsets(all) {
            sums[partition.topic, default: 0] += offset ?? 0
        }
        return sums
    }

    /// Two stages' readers are one member of one group: each gets its own topics' messages and
    /// partitions, the offsets each stores are committed in the shared group, and a reader
    /// closed first (a service group stops its services one by one) leaves the other reading.
    @Test func twoReadersAreOneMemberOfOneGroup() async throws {
        let config = KafkaTestSupport.configuration
        let (a, b) = try await Self.topics("test.shared").pair
        let group = KafkaTestSupport.uniqueName("test.shared")
        let shared = SharedConsumer(configuration: config, groupID: group, logger: KafkaTestSupport.logger)
        let memberA = SharedConsumer.Member(groupID: group, topics: [a], bufferCapacity: 64, wakesOnProduce: false)
        let memberB = SharedConsumer.Member(groupID: group + "-b", topics: [b], bufferCapacity: 64, wakesOnProduce: true)
        try shared.declare([memberA, memberB])
        #expect(
            shared.open(
                SharedConsumer.Member(groupID: "other", topics: [a], bufferCapacity: 1, wakesOnProduce: false),
                rebalanceListener: Self.ignore) == nil)
        let (gotA, gotB) = (Received(), Received())
        let readerA = try #require(shared.open(memberA, rebalanceListener: gotA.listener))
        let readerB = try #require(shared.open(memberB, rebalanceListener: gotB.listener))
        #expect(shared.open(memberA, rebalanceListener: Self.ignore) == nil, "a topic has one reader")
        try readerA.start()
        #expect(readerA.sinceLastPoll == nil, "joins only once every declared reader started")
        try readerB.start()
        let tasks = [gotA.read(readerA), gotB.read(readerB)]
        let partitions = { (t: String) in Set((0..<2).map { KafkaTopicPartition(topic: t, partition: Int32($0)) }) }
        #expect(try await eventually(timeout: .seconds(60)) { gotA.heard.withLock { $0 } == partitions(a) })
        #expect(gotB.heard.withLock { $0 } == partitions(b))

        try await Self.send(20, to: a)
        try await Self.send(30, to: b)
        #expect(try await eventually { gotA.count == 20 && gotB.count == 30 })
        #expect(gotA.messages.withLock { $0.allSatisfy { $0.topic == a } })
        #expect(gotB.messages.withLock { $0.allSatisfy { $0.topic == b } })
        for (reader, got) in [(readerA, gotA), (readerB, gotB)] {
            for m in got.messages.withLock({ $0 }) { try reader.storeOffset(m.topicPartition, nextOffset: m.offset + 1) }
        }

        // A closes first: its messages end at once, B goes on reading.
        await readerA.close()
        await tasks[0].value
        try await Self.send(5, to: a, from: 20)
        try await Self.send(5, to: b, from: 30)
        #expect(try await eventually { gotB.count == 35 })
        #expect(gotA.count == 20, "a closed reader takes nothing more")
        await readerB.close()
        await tasks[1].value
        let committed = try await Self.committed(group, [a, b])
        #expect(committed[a] == 20, "what A stored, not what came after it closed")
        #expect(committed[b] == 30)
    }

    /// A reader that takes nothing holds at most its own buffer: its partitions are paused,
    /// the other reader gets everything, and once it reads, it gets every message once, in
    /// order.
    @Test func aReaderThatFallsBehindHoldsUpNoOther() async throws {
        let config = KafkaTestSupport.configuration
        let (a, b) = try await Self.topics("test.shared.slow").pair
        let (readerA, readerB, gotA, gotB) = try Self.twoReaders(config, "test.shared.slow", a, b, bufferCapacity: 4)
        let readB = gotB.read(readerB)
        try await Self.send(200, to: a)
        try await Self.send(100, to: b)
        #expect(try await eventually(timeout: .seconds(60)) { gotB.count == 100 }, "B waited for A")

        let readA = gotA.read(readerA)
        #expect(try await eventually(timeout: .seconds(60)) { gotA.count == 200 })
        let byPartition = Dictionary(grouping: gotA.messages.withLock { $0 }, by: \.partition)
        for (_, messages) in byPartition {
            let offsets = messages.map(\.offset)
            #expect(offsets == Array(offsets[0]...offsets[0] + Int64(offsets.count - 1)), "each once, in order")
        }
        await readerA.close()
        await readerB.close()
        await readA.value
        await readB.value
    }

    /// Each reader rests on its own: one that gets nothing stops fetching its partitions while
    /// the other's stream flows (a fetch costs the broker for each partition in it), and what
    /// arrives for it meanwhile is found by a check of its ends.
    @Test func anIdleReaderRestsWhileTheOtherStreams() async throws {
        var config = KafkaTestSupport.configuration
        config.idleAfterMilliseconds = 300
        config.idleFetchIntervalMilliseconds = 100
        let (a, b) = try await Self.topics("test.shared.rest", partitions: 1).pair
        let (readerA, readerB, gotA, gotB) = try Self.twoReaders(config, "test.shared.rest", a, b, bufferCapacity: 64)
        let reads = [gotA.read(readerA), gotB.read(readerB)]
        #expect(try await eventually(timeout: .seconds(60)) { !gotA.heard.withLock { $0 }.isEmpty })

        let producer = try KafkaProducer(configuration: config, logger: KafkaTestSupport.logger)
        let streaming = Task {
            var i = 0
            while !Task.isCancelled {
                _ = try? await producer.send(topic: b, key: nil, value: Array("b\(i)".utf8))
                i += 1
                try? await Task.sleep(for: .milliseconds(30))
            }
        }
        let resting = { (r: SharedConsumer.Reader) in r.state.withLock { $0.isResting } }
        #expect(try await eventually(timeout: .seconds(20)) { resting(readerA) && gotB.count > 20 }, "A never rested")
        let before = gotB.count
        #expect(try await eventually { gotB.count > before + 10 }, "B's stream stopped")
        #expect(!resting(readerB), "B rested while its stream flowed")

        // What arrives for the resting reader is found, and wakes it.
        _ = try await producer.send(topic: a, key: nil, value: Array("a0".utf8))
        #expect(try await eventually(timeout: .seconds(10)) { gotA.count == 1 })
        streaming.cancel()
        _ = await streaming.value
        await producer.close()
        #expect(try await eventually(timeout: .seconds(20)) { resting(readerA) && resting(readerB) }, "idle, both rest")
        await readerA.close()
        await readerB.close()
        for r in reads { await r.value }
    }

    /// A stage that had a group of its own goes on where that group stopped; once the shared
    /// group has committed an offset of its own, nothing more is carried.
    @Test func offsetsCarryOverFromAStagesOwnGroup() async throws {
        let config = KafkaTestSupport.configuration
        let (a, b) = try await Self.topics("test.shared.carry", partitions: 1).pair
        try await Self.send(10, to: a)
        let own = KafkaTestSupport.uniqueName("test.shared.carry-own")
        let before = try KafkaConsumer(configuration: config, groupID: own, topics: [a], logger: KafkaTestSupport.logger)
        try before.start()
        var iterator = before.messages.makeAsyncIterator()
        for _ in 0..<6 {
            let m = try #require(await iterator.next())
            try before.storeOffset(m.topicPartition, nextOffset: m.offset + 1)
        }
        await before.close()

        let group = KafkaTestSupport.uniqueName("test.shared.carry")
        let member = SharedConsumer.Member(groupID: own, topics: [a], bufferCapacity: 64, wakesOnProduce: false)
        let other = SharedConsumer.Member(groupID: group, topics: [b], bufferCapacity: 64, wakesOnProduce: false)
        for round in 0..<2 {
            let shared = SharedConsumer(configuration: config, groupID: group, logger: KafkaTestSupport.logger)
            try shared.declare([member, other])
            let carried = try await shared.carryOverOffsets()
            #expect(carried == (round == 0 ? [KafkaTopicPartition(topic: a, partition: 0): 6] : [:]))
            let got = Received()
            let reader = try #require(shared.open(member, rebalanceListener: got.listener))
            let idle = try #require(shared.open(other, rebalanceListener: Self.ignore))
            try reader.start()
            try idle.start()
            let read = got.read(reader)
            #expect(try await eventually(timeout: .seconds(60)) { got.count == 4 })
            #expect(got.messages.withLock { $0.map(\.offset) } == [6, 7, 8, 9])
            if round == 0 {
                // Read but not stored: the next round reads them again, from the shared group's
                // own offset, not the stage's old group's.
                try reader.storeOffset(KafkaTopicPartition(topic: a, partition: 0), nextOffset: 6)
            }
            await idle.close()
            await reader.close()
            await read.value
        }
    }
}

extension Array {
    fileprivate var pair: (Element, Element) { (self[0], self[1]) }
}
