import HallmarkKafka
import Synchronization

/// Hands consumed messages to a stage's slots — key lanes, or batch workers — keeping each
/// slot's messages in order, and bounds what is in flight without letting one slot hold up
/// the others.
///
/// Each slot holds at most `depth` messages (queued or being worked on). A message whose slot
/// is full is parked, its partition is paused (so no more of it is fetched), and later
/// messages of that partition are parked behind it; as the slot drains, parked messages move
/// in, in order, and the partition is resumed. So a stuck key holds `depth` messages and
/// pauses its own partition; every other partition keeps flowing. Over all slots at most
/// `maxInFlight` messages and `maxBytes` bytes are held (parked ones included); only that
/// global bound ever makes the consumer wait.
final class StageDispatcher: Sendable {
    struct State {
        var queues: [[KafkaMessage]]
        var heads: [Int]
        var load: [Int]
        var takers: [CheckedContinuation<[KafkaMessage]?, Never>?]
        var takerLimits: [Int]
        var parked: [KafkaTopicPartition: [KafkaMessage]] = [:]
        var count = 0
        var bytes = 0
        var putter: CheckedContinuation<Void, Never>?
        var finished = false
    }

    let depth: Int
    let maxInFlight: Int
    let maxBytes: Int
    let slotOf: @Sendable (KafkaMessage) -> Int
    let pause: @Sendable ([KafkaTopicPartition]) -> Void
    let resume: @Sendable ([KafkaTopicPartition]) -> Void
    private let state: Mutex<State>

    init(slots: Int, depth: Int, maxInFlight: Int, maxBytes: Int, slotOf: @escaping @Sendable (KafkaMessage) -> Int,
         pause: @escaping @Sendable ([KafkaTopicPartition]) -> Void,
         resume: @escaping @Sendable ([KafkaTopicPartition]) -> Void) {
        self.depth = max(1, depth)
        self.maxInFlight = max(1, maxInFlight)
        self.maxBytes = max(1, maxBytes)
        self.slotOf = slotOf
        self.pause = pause
        self.resume = resume
        state = Mutex(State(queues: Array(repeating: [], count: slots), heads: Array(repeating: 0, count: slots),
                            load: Array(repeating: 0, count: slots), takers: Array(repeating: nil, count: slots),
                            takerLimits: Array(repeating: 1, count: slots)))
    }

    /// Hands a message to its slot, or parks it. Waits only while the global bound is reached.
    func put(_ message: KafkaMessage) async {
        while true {
            enum Step { case done, wait }
            var wake: (CheckedContinuation<[KafkaMessage]?, Never>, [KafkaMessage])?
            var toPause: KafkaTopicPartition?
            let step = state.withLock { s -> Step in
                let size = Self.size(of: message)
                // Over the global bound: wait (a lone message is always let in, whatever its size).
                if s.count >= maxInFlight || (s.count > 0 && s.bytes + size > maxBytes) { return .wait }
                s.count += 1
                s.bytes += size
                let partition = message.topicPartition
                if s.parked[partition] != nil {
                    s.parked[partition]!.append(message)
                    return .done
                }
                let slot = slotOf(message)
                if s.load[slot] >= depth {
                    s.parked[partition] = [message]
                    toPause = partition
                    return .done
                }
                wake = Self.enqueue(message, slot: slot, &s)
                return .done
            }
            if let (taker, batch) = wake { taker.resume(returning: batch) }
            if let toPause { pause([toPause]) }
            guard step == .wait else { return }
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    let size = Self.size(of: message)
                    if s.finished || s.count < maxInFlight && (s.count == 0 || s.bytes + size <= maxBytes) { return true }
                    s.putter = waiter
                    return false
                }
                if now { waiter.resume() }
            }
        }
    }

    /// Up to `limit` messages of `slot`, waiting for at least one; nil once finished and empty.
    func take(slot: Int, limit: Int) async -> [KafkaMessage]? {
        await withCheckedContinuation { (taker: CheckedContinuation<[KafkaMessage]?, Never>) in
            let ready = state.withLock { s -> [KafkaMessage]?? in
                if s.heads[slot] < s.queues[slot].count { return .some(Self.dequeue(slot: slot, limit: limit, &s)) }
                if s.finished { return .some(nil) }
                s.takers[slot] = taker
                s.takerLimits[slot] = limit
                return nil
            }
            if let ready { taker.resume(returning: ready) }
        }
    }

    /// The slot finished these messages: room for parked messages and for the consumer.
    func done(slot: Int, messages: [KafkaMessage]) {
        var wakes: [(CheckedContinuation<[KafkaMessage]?, Never>, [KafkaMessage])] = []
        var resumed: [KafkaTopicPartition] = []
        let putter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            s.load[slot] -= messages.count
            s.count -= messages.count
            s.bytes -= messages.reduce(0) { $0 + Self.size(of: $1) }
            for partition in Array(s.parked.keys) {
                var queue = s.parked[partition]!
                var moved = 0
                while moved < queue.count {
                    let target = slotOf(queue[moved])
                    guard s.load[target] < depth else { break }
                    if let wake = Self.enqueue(queue[moved], slot: target, &s) { wakes.append(wake) }
                    moved += 1
                }
                queue.removeFirst(moved)
                if queue.isEmpty {
                    s.parked[partition] = nil
                    resumed.append(partition)
                } else {
                    s.parked[partition] = queue
                }
            }
            defer { s.putter = nil }
            return s.putter
        }
        for (taker, batch) in wakes { taker.resume(returning: batch) }
        if !resumed.isEmpty { resume(resumed) }
        putter?.resume()
    }

    /// Removes the parked messages of `partitions` (revoked, or at shutdown) and returns them.
    func dropParked(_ partitions: [KafkaTopicPartition]? = nil) -> [KafkaMessage] {
        let (dropped, putter) = state.withLock { s -> ([KafkaMessage], CheckedContinuation<Void, Never>?) in
            let keys = partitions ?? Array(s.parked.keys)
            var dropped: [KafkaMessage] = []
            for p in keys { dropped += s.parked.removeValue(forKey: p) ?? [] }
            s.count -= dropped.count
            s.bytes -= dropped.reduce(0) { $0 + Self.size(of: $1) }
            defer { s.putter = nil }
            return (dropped, s.putter)
        }
        putter?.resume()
        return dropped
    }

    /// No more messages: takers get what their slots hold, then nil.
    func finish() {
        let (takers, putter) = state.withLock { s -> ([CheckedContinuation<[KafkaMessage]?, Never>], CheckedContinuation<Void, Never>?) in
            s.finished = true
            let takers = s.takers.compactMap { $0 }
            s.takers = Array(repeating: nil, count: s.takers.count)
            defer { s.putter = nil }
            return (takers, s.putter)
        }
        takers.forEach { $0.resume(returning: nil) }  // a waiting taker's slot is empty
        putter?.resume()
    }

    /// Messages held: queued, being worked on, or parked.
    var inFlight: Int { state.withLock { $0.count } }

    /// Partitions currently paused with parked messages.
    var pausedPartitions: Int { state.withLock { $0.parked.count } }

    private static func enqueue(_ message: KafkaMessage, slot: Int, _ s: inout State)
        -> (CheckedContinuation<[KafkaMessage]?, Never>, [KafkaMessage])?
    {
        s.queues[slot].append(message)
        s.load[slot] += 1
        guard let taker = s.takers[slot] else { return nil }
        s.takers[slot] = nil
        return (taker, dequeue(slot: slot, limit: s.takerLimits[slot], &s))
    }

    private static func dequeue(slot: Int, limit: Int, _ s: inout State) -> [KafkaMessage] {
        let head = s.heads[slot]
        let end = min(s.queues[slot].count, head + max(1, limit))
        let batch = Array(s.queues[slot][head..<end])
        if end == s.queues[slot].count {
            s.queues[slot].removeAll(keepingCapacity: true)
            s.heads[slot] = 0
        } else {
            s.heads[slot] = end
            if end > 1024 {
                s.queues[slot].removeFirst(end)
                s.heads[slot] = 0
            }
        }
        return batch
    }

    static func size(of message: KafkaMessage) -> Int { message.value.count + (message.key?.count ?? 0) + 64 }
}
