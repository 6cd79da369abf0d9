import HallmarkCore
import Synchronization

/// What a consumer's poll thread and its reader share about paused partitions.
///
/// Two things pause a partition: the reader (its lanes are full), and the consumer's own
/// ``FetchRest`` when nothing arrives. A rest never resumes a partition the reader paused, and
/// the reader resuming one wakes the rest, so neither undoes the other.
final class ConsumerPauses: Sendable {
    private struct State {
        var rest: FetchRest
        var byReader: Set<KafkaTopicPartition> = []
        /// The latest sign of traffic from outside the poll thread (a resume, an assignment).
        var signal: UInt64 = 0
        /// The partitions a rest paused, and their end offsets then.
        var rested: [KafkaTopicPartition: Int64] = [:]
        /// Partitions the reader resumed whose fetching the poll thread has yet to wake.
        var toWake: Set<KafkaTopicPartition> = []
    }

    private let state: Mutex<State>
    /// Whether this process producing wakes the consumer (``ProduceClock``): only a reader of
    /// answers to what its own process sends. Every other consumer of a busy process would
    /// otherwise never rest, and an idle one woke at each metrics snapshot.
    let wakesOnProduce: Bool
    /// End-offset checks made while resting, for tests and the curious.
    let checks = Atomic<Int>(0)

    /// When the process last produced (``ProduceClock``, or a test's own clock).
    private let produced: @Sendable () -> UInt64

    init(
        policy: FetchRest.Policy, wakesOnProduce: Bool = false, now: UInt64 = Uptime.now(),
        produced: @escaping @Sendable () -> UInt64 = { ProduceClock.last.load(ordering: .relaxed) }
    ) {
        state = Mutex(State(rest: FetchRest(policy: policy, now: now)))
        self.wakesOnProduce = wakesOnProduce
        self.produced = produced
    }

    /// The reader paused these partitions.
    func readerPaused(_ partitions: [KafkaTopicPartition]) {
        state.withLock { $0.byReader.formUnion(partitions) }
    }

    /// The reader resumed these partitions: they fetch again, and so does a resting consumer.
    func readerResumed(_ partitions: [KafkaTopicPartition], now: UInt64 = Uptime.now()) {
        state.withLock {
            $0.byReader.subtract(partitions)
            $0.signal = max($0.signal, now)
            $0.toWake.formUnion(partitions)
        }
    }

    /// Partitions assigned or revoked: every assignment starts unpaused, and wakes the consumer.
    func assignmentChanged(_ partitions: [KafkaTopicPartition], now: UInt64 = Uptime.now()) {
        state.withLock {
            $0.byReader.subtract(partitions)
            $0.signal = max($0.signal, now)
        }
    }

    /// The partitions the reader resumed since the last call, for the poll thread to wake
    /// their fetching: librdkafka's broker thread, with every partition paused, sleeps until
    /// its next timer (up to `fetch.queue.backoff.ms`, a second), and a resume alone does not
    /// wake it. So a stage that paused a partition for a full slot waited a second for it.
    func takeResumed() -> [KafkaTopicPartition] {
        state.withLock { s in
            guard !s.toWake.isEmpty else { return [] }
            defer { s.toWake = [] }
            return Array(s.toWake.subtracting(s.byReader))
        }
    }

    /// A message arrived (or the reader's buffer is full): the consumer is busy.
    func busy(now: UInt64) -> FetchRest.Action? {
        state.withLock { $0.rest.received(at: now) }
    }

    /// The poll thread's turn: wakes on a sign of traffic (the reader's, an assignment, this
    /// process producing), else moves the rest on. Returns what to do to the partitions the
    /// reader has not paused, and which those are.
    func step(now: UInt64) -> (action: FetchRest.Action, exempt: Set<KafkaTopicPartition>)? {
        let produced = wakesOnProduce ? self.produced() : 0
        return state.withLock { s in
            let signal = max(s.signal, produced)
            var action: FetchRest.Action?
            if signal > s.rest.lastActivity { action = s.rest.active(at: signal) }
            if action == nil { action = s.rest.tick(at: now) }
            if action == .check { checks.add(1, ordering: .relaxed) }
            return action.map { ($0, s.byReader) }
        }
    }

    /// How long the poll thread may block now, in milliseconds: until the rest's next move,
    /// and at most `longest`, within which it sees the reader's resume. A consumer that this
    /// process's producing wakes looks at its clock every 20 ms while resting. (An assignment
    /// arrives through the poll itself.) Cutting the wait short with `rd_kafka_queue_yield` was
    /// tried: test runs froze with it, perhaps from a yield still pending when the loop ends
    /// and `rd_kafka_consumer_close` waits on the same queue (not proven).
    func pollTimeout(now: UInt64, longest: Int32 = 100) -> Int32 {
        state.withLock { s in
            var limit = longest
            if s.rest.isResting && wakesOnProduce { limit = min(limit, 20) }
            // A partition the reader paused is resumed from another thread; look soon.
            if !s.byReader.isEmpty || !s.toWake.isEmpty { limit = min(limit, 5) }
            return s.rest.millisecondsToDeadline(from: now, atMost: limit)
        }
    }

    /// A rest paused these partitions, whose end offsets were these.
    func rested(_ ends: [KafkaTopicPartition: Int64]) {
        state.withLock { $0.rested = ends }
    }

    /// The partitions the current rest paused, with their end offsets then.
    var restedEnds: [KafkaTopicPartition: Int64] { state.withLock { $0.rested } }

    /// A check's answer (``FetchRest/checked(moved:at:)``).
    func checked(moved: Bool, now: UInt64 = Uptime.now()) -> FetchRest.Action? {
        state.withLock { $0.rest.checked(moved: moved, at: now) }
    }

    /// The partitions the reader paused.
    var readerPausedPartitions: Set<KafkaTopicPartition> { state.withLock { $0.byReader } }

    /// Whether the partitions are paused for a rest (for tests and metrics).
    var isResting: Bool { state.withLock { $0.rest.isResting } }
}
