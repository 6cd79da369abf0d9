import Foundation
import HallmarkKafka
import HallmarkRuntime
import Synchronization

/// A broker in memory, for running a ``HallmarkRuntime/Stage`` in a unit test: topics with
/// partitions, consumer groups with committed offsets, and a sink that can be told to fail.
///
/// What it keeps of Kafka: per-partition order, a key always on the same partition, offsets
/// stored by the stage and committed when its source closes, pause and resume, revocation
/// at close (the stage drains its partitions), and permanent (`oversized`) and transient
/// (`delivery`) send failures. What it leaves out: more than one member per group (a
/// member gets every partition of its topics), timing, and the network. The real-broker
/// suites keep those.
public final class MemoryBroker: Sendable {
    /// Partitions of a topic created by its first message.
    public let defaultPartitions: Int32
    let state = Mutex(State())

    struct State {
        var topics: [String: [[KafkaMessage]]] = [:]
        var committed: [String: [KafkaTopicPartition: Int64]] = [:]
        var members: [ObjectIdentifier: MemorySource.Member] = [:]
        var transientFailures = 0
        var refuse: (@Sendable (KafkaOutgoingMessage) -> Bool)?
        var waiters: [Waiter] = []
        /// Waits whose time ran out (each by its number), until they return.
        var expired: Set<UInt64> = []
        var nextWaiter: UInt64 = 0
        var generation: UInt64 = 0
        var roundRobin: Int32 = 0
    }

    /// A ``waitUntil(timeout:_:)`` waiting for its condition.
    struct Waiter {
        let id: UInt64
        let check: @Sendable (State) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    public init(defaultPartitions: Int32 = 3) {
        precondition(defaultPartitions >= 1)
        self.defaultPartitions = defaultPartitions
    }

    /// A stage's two ends on this broker; `maxMessageBytes` bounds what the sink takes.
    public func transport(maxMessageBytes: Int = 1 << 20) -> StageTransport {
        StageTransport(
            source: { [self] request in MemorySource(broker: self, request: request) },
            sink: MemorySink(broker: self, maxMessageBytes: maxMessageBytes))
    }

    /// Creates a topic with `partitions` (a no-op when it exists).
    public func createTopic(_ name: String, partitions: Int32) {
        state.withLock { s in
            if s.topics[name] == nil { s.topics[name] = Array(repeating: [], count: Int(partitions)) }
        }
    }

    /// Appends a message: to `partition`, else to its key's partition, else round-robin.
    @discardableResult
    public func produce(topic: String, key: [UInt8]?, value: [UInt8], partition: Int32? = nil) -> (Int32, Int64) {
        let (placed, wake) = state.withLock { s in
            let placed = s.append(
                KafkaOutgoingMessage(topic: topic, key: key, value: value, partition: partition), defaultPartitions)
            return (placed, s.wake())
        }
        wake()
        return placed
    }

    /// Appends a message with a string key.
    @discardableResult
    public func produce(topic: String, key: String, value: [UInt8]) -> (Int32, Int64) {
        produce(topic: topic, key: Array(key.utf8), value: value)
    }

    /// Every message of a topic, partition by partition.
    public func messages(in topic: String) -> [KafkaMessage] {
        state.withLock { $0.topics[topic]?.flatMap { $0 } ?? [] }
    }

    /// A group's committed offsets (the next offset to read, per partition).
    public func committed(group: String) -> [KafkaTopicPartition: Int64] {
        state.withLock { $0.committed[group] ?? [:] }
    }

    /// The next `count` sends (or enqueues) fail with a transient delivery error.
    public func failNextSends(_ count: Int) { state.withLock { $0.transientFailures = count } }

    /// Sends holding a message for which `refuse` is true fail permanently (`oversized`), as
    /// a broker with a lower limit than the producer's would.
    public func refuseMessages(where refuse: (@Sendable (KafkaOutgoingMessage) -> Bool)?) {
        state.withLock { $0.refuse = refuse }
    }

    /// Waits until a topic holds at least `count` messages, or `timeout` passes; whether it did.
    public func waitFor(_ topic: String, count: Int, timeout: Duration = .seconds(30)) async -> Bool {
        await waitUntil(timeout: timeout) { s in (s.topics[topic]?.reduce(0) { $0 + $1.count } ?? 0) >= count }
    }

    /// Waits for the first message on `topic` that `match` takes, or `timeout`; nil if none came.
    public func firstMessage(
        in topic: String, timeout: Duration = .seconds(30), where match: @escaping @Sendable (KafkaMessage) -> Bool
    ) async -> KafkaMessage? {
        let first: @Sendable (State) -> KafkaMessage? = { s in s.topics[topic]?.lazy.flatMap { $0 }.first(where: match) }
        _ = await waitUntil(timeout: timeout) { first($0) != nil }
        return state.withLock { first($0) }
    }

    /// Waits until `condition` holds of the broker's state (checked on every change).
    func waitUntil(timeout: Duration, _ condition: @escaping @Sendable (State) -> Bool) async -> Bool {
        let id = state.withLock { s in
            s.nextWaiter += 1
            return s.nextWaiter
        }
        // Ends this wait only: another wait keeps its own time.
        let timer = Task { [self] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            state.withLock { s in
                s.expired.insert(id)
                return s.wake()
            }()
        }
        defer { timer.cancel() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if condition(s) || s.expired.contains(id) { return true }
                s.waiters.append(Waiter(id: id, check: condition, continuation: continuation))
                return false
            }
            if now { continuation.resume() }
        }
        return state.withLock { s in
            s.expired.remove(id)
            return condition(s)
        }
    }
}

extension MemoryBroker.State {
    /// Appends one message; its partition and offset.
    mutating func append(_ m: KafkaOutgoingMessage, _ defaultPartitions: Int32) -> (Int32, Int64) {
        if topics[m.topic] == nil { topics[m.topic] = Array(repeating: [], count: Int(defaultPartitions)) }
        let count = Int32(topics[m.topic]!.count)
        let partition: Int32
        if let p = m.partition {
            partition = p % count
        } else if let key = m.key {
            // FNV-1a: stable across runs, so a key's partition is too.
            partition = Int32(key.reduce(UInt32(2_166_136_261)) { ($0 ^ UInt32($1)) &* 16_777_619 } % UInt32(count))
        } else {
            roundRobin &+= 1
            partition = roundRobin % count
        }
        let offset = Int64(topics[m.topic]![Int(partition)].count)
        topics[m.topic]![Int(partition)].append(
            KafkaMessage(
                topic: m.topic, partition: partition, offset: offset, key: m.key, value: m.value,
                timestampMilliseconds: Int64(Date().timeIntervalSince1970 * 1000)))
        return (partition, offset)
    }

    /// Takes the waiters whose conditions now hold or whose time ran out, and every source's
    /// fetch waiter; the returned closure resumes them outside the lock.
    mutating func wake() -> @Sendable () -> Void {
        var ready: [CheckedContinuation<Void, Never>] = []
        var kept: [MemoryBroker.Waiter] = []
        for w in waiters {
            if expired.contains(w.id) || w.check(self) { ready.append(w.continuation) } else { kept.append(w) }
        }
        waiters = kept
        var fetchers: [CheckedContinuation<Void, Never>] = []
        for id in members.keys {
            if let w = members[id]?.waiter {
                fetchers.append(w)
                members[id]?.waiter = nil
            }
        }
        let all = ready + fetchers
        return { all.forEach { $0.resume() } }
    }
}
