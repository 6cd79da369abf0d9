import HallmarkKafka
import Synchronization

/// Hands consumed messages to a stage's slots — key lanes, or batch workers — keeping each
/// slot's messages in order, and bounds what is in flight without letting one slot hold up
/// the others.
///
/// Each slot holds at most `depth` messages (queued or being worked on). A message whose slot
/// is full (or, with ``Routing/exclusiveKeys``, whose key has none and no slot is free) is
/// parked, its partition is paused (so no more of it is fetched), and later messages of that
/// partition are parked behind it; as the slot drains, parked messages move
/// in, in order, and the partition is resumed. So a stuck key holds `depth` messages and
/// pauses its own partition; every other partition keeps flowing. Over all slots at most
/// `maxInFlight` messages and `maxBytes` bytes are queued or worked on; only that global
/// bound ever makes the consumer wait. Parked messages are outside it (else a stuck key's
/// partition, parking what the consumer had already fetched, could use up the bound and stop
/// every partition); they are bounded instead by the consumer's buffer per paused partition.
final class StageDispatcher: Sendable {
    /// How messages find their slot.
    enum Routing: Sendable {
        /// A fixed slot per message (a batch worker per partition).
        case fixed(@Sendable (KafkaMessage) -> Int)
        /// A slot of its own per key while the key has messages held: a key waits only for
        /// its own messages, never for another key that happened to share its slot. (Keys
        /// hashed onto fixed lanes let one stuck key stall every key of its lane, and with
        /// them their partitions.)
        case exclusiveKeys
    }

    struct State {
        var queues: [[KafkaMessage]]
        var heads: [Int]
        var load: [Int]
        var takers: [CheckedContinuation<[KafkaMessage]?, Never>?]
        var takerLimits: [Int]
        var parked: [KafkaTopicPartition: [KafkaMessage]] = [:]
        /// Messages held, parked ones included, and their bytes.
        var count = 0
        var bytes = 0
        /// The parked share of `count` and `bytes`.
        var parkedCount = 0
        var parkedBytes = 0
        /// Whether one more message of `size` bytes fits the global bound.
        func admits(_ size: Int, maxInFlight: Int, maxBytes: Int) -> Bool {
            let active = count - parkedCount
            return active < maxInFlight && (active == 0 || bytes - parkedBytes + size <= maxBytes)
        }
        var putter: CheckedContinuation<Void, Never>?
        var finished = false
        /// With ``Routing/exclusiveKeys``: each bound key's slot, each slot's key, free slots.
        var keySlot: [[UInt8]: Int] = [:]
        var slotKey: [[UInt8]?]
        var freeSlots: [Int]
    }

    let depth: Int
    let maxInFlight: Int
    let maxBytes: Int
    let routing: Routing
    /// Called with the dispatcher's lock held, so pauses and resumes reach the consumer in
    /// the order they were decided: they must not call back into the dispatcher.
    let pause: @Sendable ([KafkaTopicPartition]) -> Void
    let resume: @Sendable ([KafkaTopicPartition]) -> Void
    private let state: Mutex<State>

    init(
        slots: Int, depth: Int, maxInFlight: Int, maxBytes: Int, routing: Routing,
        pause: @escaping @Sendable ([KafkaTopicPartition]) -> Void,
        resume: @escaping @Sendable ([KafkaTopicPartition]) -> Void
    ) {
        self.depth = max(1, depth)
        self.maxInFlight = max(1, maxInFlight)
        self.maxBytes = max(1, maxBytes)
        self.routing = routing
        self.pause = pause
        self.resume = resume
        state = Mutex(
            State(
                queues: Array(repeating: [], count: slots), heads: Array(repeating: 0, count: slots),
                load: Array(repeating: 0, count: slots), takers: Array(repeating: nil, count: slots),
                takerLimits: Array(repeating: 1, count: slots),
                slotKey: Array(repeating: nil, count: slots), freeSlots: (0..<slots).reversed()))
    }

    /// Hands a message to its slot, or parks it. Waits only while the global bound is reached
    /// (a lone message is always let in, whatever its size); one call at a time.
    func put(_ message: KafkaMessage) async {
        while true {
            enum Step { case done, wait }
            var wake: (CheckedContinuation<[KafkaMessage]?, Never>, [KafkaMessage])?
            let step = state.withLock { s -> Step in
                if s.finished { return .done }  // stopping: nothing more is admitted
                let size = Self.size(of: message)
                let partition = message.topicPartition
                // A message that parks is outside the bound: it never waits.
                guard s.parked[partition] == nil, let placement = placement(of: message, &s) else {
                    // Paused under the lock, so a resume for the same partition (a lane
                    // draining it) can never overtake this pause and leave it paused for good.
                    if s.parked[partition] == nil { pause([partition]) }
                    s.parked[partition, default: []].append(message)
                    s.count += 1
                    s.bytes += size
                    s.parkedCount += 1
                    s.parkedBytes += size
                    return .done
                }
                if !s.admits(size, maxInFlight: maxInFlight, maxBytes: maxBytes) { return .wait }
                s.count += 1
                s.bytes += size
                wake = Self.enqueue(message, slot: Self.occupy(placement, &s), &s)
                return .done
            }
            if let (taker, batch) = wake { taker.resume(returning: batch) }
            guard step == .wait else { return }
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    let size = Self.size(of: message)
                    if s.finished || s.admits(size, maxInFlight: maxInFlight, maxBytes: maxBytes) { return true }
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

    /// Up to `limit` messages `slot` holds now, without waiting (maybe none).
    func takeReady(slot: Int, limit: Int) -> [KafkaMessage] {
        state.withLock { s in
            s.heads[slot] < s.queues[slot].count && limit > 0 ? Self.dequeue(slot: slot, limit: limit, &s) : []
        }
    }

    /// The slot finished these messages: room for parked messages and for the consumer.
    func done(slot: Int, messages: [KafkaMessage]) {
        var wakes: [(CheckedContinuation<[KafkaMessage]?, Never>, [KafkaMessage])] = []
        let putter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            var resumed: [KafkaTopicPartition] = []
            s.load[slot] -= messages.count
            if s.load[slot] == 0, let key = s.slotKey[slot] {  // the key has nothing held: free its slot
                s.keySlot[key] = nil
                s.slotKey[slot] = nil
                s.freeSlots.append(slot)
            }
            s.count -= messages.count
            s.bytes -= messages.reduce(0) { $0 + Self.size(of: $1) }
            for partition in Array(s.parked.keys) {
                var queue = s.parked[partition]!
                var moved = 0
                while moved < queue.count {
                    guard let placement = placement(of: queue[moved], &s) else { break }
                    let target = Self.occupy(placement, &s)
                    if let wake = Self.enqueue(queue[moved], slot: target, &s) { wakes.append(wake) }
                    s.parkedCount -= 1
                    s.parkedBytes -= Self.size(of: queue[moved])
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
            if !resumed.isEmpty { resume(resumed) }  // under the lock: see `put`
            defer { s.putter = nil }
            return s.putter
        }
        for (taker, batch) in wakes { taker.resume(returning: batch) }
        putter?.resume()
    }

    /// Removes the parked messages of `partitions` (revoked, or at shutdown) and returns them.
    func dropParked(_ partitions: [KafkaTopicPartition]? = nil) -> [KafkaMessage] {
        let (dropped, putter) = state.withLock { s -> ([KafkaMessage], CheckedContinuation<Void, Never>?) in
            let keys = partitions ?? Array(s.parked.keys)
            var dropped: [KafkaMessage] = []
            for p in keys { dropped += s.parked.removeValue(forKey: p) ?? [] }
            let droppedBytes = dropped.reduce(0) { $0 + Self.size(of: $1) }
            s.count -= dropped.count
            s.bytes -= droppedBytes
            s.parkedCount -= dropped.count
            s.parkedBytes -= droppedBytes
            defer { s.putter = nil }
            return (dropped, s.putter)
        }
        putter?.resume()
        return dropped
    }

    /// No more messages: takers get what their slots hold, then nil.
    func finish() {
        let (takers, putter) = state.withLock {
            s -> ([CheckedContinuation<[KafkaMessage]?, Never>], CheckedContinuation<Void, Never>?) in
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

    /// Where a message can go now: a slot it already has (its key's, or its fixed one), or the
    /// free slot its key would take.
    enum Placement {
        case held(Int)
        case free(Int, key: [UInt8])
    }

    /// Where `message` can go now, or nil when it must park. Changes nothing (`inout` only to
    /// avoid copying the state).
    private func placement(of message: KafkaMessage, _ s: inout State) -> Placement? {
        switch routing {
        case .fixed(let slotOf):
            let slot = slotOf(message)
            return s.load[slot] < depth ? .held(slot) : nil
        case .exclusiveKeys:
            let key = Self.laneKey(of: message)
            if let slot = s.keySlot[key] { return s.load[slot] < depth ? .held(slot) : nil }
            return s.freeSlots.last.map { .free($0, key: key) }
        }
    }

    /// Takes up `placement`, found under the same lock: a free slot becomes its key's.
    private static func occupy(_ placement: Placement, _ s: inout State) -> Int {
        switch placement {
        case .held(let slot):
            return slot
        case .free(let slot, let key):
            s.freeSlots.removeLast()  // `placement(of:)` offered the last free slot
            s.keySlot[key] = slot
            s.slotKey[slot] = key
            return slot
        }
    }

    /// What a key lane keeps in order: one key of one topic. A keyless message is a key of its
    /// own (no order among keyless messages, as Kafka's own partitioner gives none).
    static func laneKey(of message: KafkaMessage) -> [UInt8] {
        var key = Array(message.topic.utf8)
        if let k = message.key {
            key.append(0)
            key += k
        } else {
            key.append(1)
            withUnsafeBytes(of: message.partition.bigEndian) { key += $0 }
            withUnsafeBytes(of: message.offset.bigEndian) { key += $0 }
        }
        return key
    }

    private static func enqueue(
        _ message: KafkaMessage, slot: Int, _ s: inout State
    )
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
