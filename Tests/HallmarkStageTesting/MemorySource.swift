import Foundation
import HallmarkKafka
import HallmarkRuntime
import Synchronization

/// A ``MemoryBroker`` group member: every partition of its topics, from the group's
/// committed offsets (without them, from the start, or the end when asked to). Its state lives in the broker's, under the broker's one lock.
public final class MemorySource: StageSource {
    struct Member {
        let request: StageSourceRequest
        var generation: UInt64 = 0
        var assigned: [KafkaTopicPartition] = []
        var positions: [KafkaTopicPartition: Int64] = [:]
        var paused: Set<KafkaTopicPartition> = []
        var stored: [KafkaTopicPartition: Int64] = [:]
        var next = 0
        var closing = false, closed = false
        var waiter: CheckedContinuation<Void, Never>?
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
    }

    let broker: MemoryBroker
    var id: ObjectIdentifier { ObjectIdentifier(self) }

    init(broker: MemoryBroker, request: StageSourceRequest) {
        self.broker = broker
        broker.state.withLock { $0.members[ObjectIdentifier(self)] = Member(request: request) }
    }

    public func start() throws {
        let (event, listener) = broker.state.withLock { s -> (KafkaRebalanceEvent, @Sendable (KafkaRebalanceEvent) -> Void) in
            var m = s.members[id]!
            s.generation += 1
            m.generation = s.generation
            for topic in m.request.topics {
                if s.topics[topic] == nil { s.topics[topic] = Array(repeating: [], count: Int(broker.defaultPartitions)) }
                for p in 0..<Int32(s.topics[topic]!.count) {
                    let tp = KafkaTopicPartition(topic: topic, partition: p)
                    m.assigned.append(tp)
                    let end = Int64(s.topics[topic]![Int(p)].count)
                    m.positions[tp] = s.committed[m.request.groupID]?[tp] ?? (m.request.startsAtEnd ? end : 0)
                }
            }
            s.members[id] = m
            return (
                KafkaRebalanceEvent(kind: .assigned, partitions: m.assigned, generation: m.generation),
                m.request.rebalanceListener
            )
        }
        listener(event)
    }

    public var messages: Messages { Messages(source: self) }

    /// The member's messages, round-robin over its unpaused partitions.
    public struct Messages: AsyncSequence, Sendable {
        public typealias Element = KafkaMessage
        public typealias Failure = Never
        let source: MemorySource

        public struct AsyncIterator: AsyncIteratorProtocol {
            let source: MemorySource
            public mutating func next() async -> KafkaMessage? { await source.fetch() }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(source: source) }
    }

    /// The next message; waits for one; nil once closed.
    func fetch() async -> KafkaMessage? {
        while true {
            enum Step { case message(KafkaMessage), end, wait }
            var step = Step.wait
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = broker.state.withLock { s -> Bool in
                    guard var m = s.members[id] else {
                        step = .end
                        return true
                    }
                    if m.closed {
                        step = .end
                        return true
                    }
                    if !m.closing, let message = s.take(for: &m) {
                        s.members[id] = m
                        step = .message(message)
                        return true
                    }
                    m.waiter = continuation
                    s.members[id] = m
                    return false
                }
                if ready { continuation.resume() }
            }
            switch step {
            case .message(let message): return message
            case .end: return nil
            case .wait: continue
            }
        }
    }

    public func pause(_ partitions: [KafkaTopicPartition]) {
        broker.state.withLock { s in s.members[id]?.paused.formUnion(partitions) }
    }

    public func resume(_ partitions: [KafkaTopicPartition]) {
        broker.state.withLock { s in
            s.members[id]?.paused.subtract(partitions)
            return s.wake()
        }()
    }

    public func storeOffset(_ partition: KafkaTopicPartition, nextOffset: Int64) throws {
        broker.state.withLock { s in s.members[id]?.stored[partition] = nextOffset }
    }

    public func highWatermarks() -> [KafkaTopicPartition: Int64] {
        broker.state.withLock { s in
            Dictionary(
                uniqueKeysWithValues: (s.members[id]?.assigned ?? []).map {
                    ($0, Int64(s.topics[$0.topic]?[Int($0.partition)].count ?? 0))
                })
        }
    }

    public var sinceLastPoll: Duration? { .zero }

    /// Stops handing out messages, revokes every partition on a thread of its own (the
    /// stage's listener blocks while it drains them), commits the stored offsets, then ends
    /// the message sequence.
    public func beginClose() {
        let event = broker.state.withLock { s -> (KafkaRebalanceEvent, @Sendable (KafkaRebalanceEvent) -> Void)? in
            guard var m = s.members[id], !m.closing else { return nil }
            m.closing = true
            s.members[id] = m
            return (
                KafkaRebalanceEvent(kind: .revoked, partitions: m.assigned, generation: m.generation), m.request.rebalanceListener
            )
        }
        guard let (revoked, listener) = event else { return }
        Thread.detachNewThread { [self] in
            listener(revoked)
            broker.state.withLock { s in
                guard var m = s.members[id] else { return {} }
                s.committed[m.request.groupID, default: [:]].merge(m.stored) { $1 }
                m.closed = true
                let waiters = m.closeWaiters
                m.closeWaiters = []
                s.members[id] = m
                let wake = s.wake()
                return {
                    wake()
                    waiters.forEach { $0.resume() }
                }
            }()
        }
    }

    public func close() async {
        beginClose()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = broker.state.withLock { s -> Bool in
                guard s.members[id]?.closed == false else { return true }
                s.members[id]?.closeWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    deinit {
        broker.state.withLock { _ = $0.members.removeValue(forKey: id) }
    }
}

extension MemoryBroker.State {
    /// The member's next message from an unpaused partition, round-robin.
    mutating func take(for m: inout MemorySource.Member) -> KafkaMessage? {
        guard !m.assigned.isEmpty else { return nil }
        for step in 0..<m.assigned.count {
            let tp = m.assigned[(m.next + step) % m.assigned.count]
            guard !m.paused.contains(tp), let position = m.positions[tp],
                let log = topics[tp.topic]?[Int(tp.partition)], position < log.count
            else { continue }
            m.positions[tp] = position + 1
            m.next = (m.next + step + 1) % m.assigned.count
            let stored = log[Int(position)]
            return KafkaMessage(
                topic: stored.topic, partition: stored.partition, offset: stored.offset, key: stored.key,
                value: stored.value, timestampMilliseconds: stored.timestampMilliseconds, generation: m.generation)
        }
        return nil
    }
}
