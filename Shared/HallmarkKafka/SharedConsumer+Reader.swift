import HallmarkCore
import Synchronization

extension SharedConsumer {
    /// One stage's view of the shared consumer: its topics' messages, assignment changes and
    /// offsets, with the same contract as a ``KafkaConsumer`` of its own.
    ///
    /// Its buffer is its own: a reader holding `bufferCapacity` messages it has not taken has
    /// its partitions paused until it has taken half of them, so a stage that falls behind
    /// never holds up the others' messages. So is its rest (``FetchRest``): a reader that got
    /// nothing for a second stops fetching its partitions while the others' stream on, since
    /// a fetch costs the broker for every partition in it.
    public final class Reader: Sendable {
        let owner: SharedConsumer
        let native: RDKafkaConsumer
        let member: Member
        private let listener: @Sendable (KafkaRebalanceEvent) -> Void
        private let stream: AsyncStream<KafkaMessage>
        private let continuation: AsyncStream<KafkaMessage>.Continuation
        let state: Mutex<State>

        struct State {
            var rest: FetchRest
            /// Paused by its rest, and their end offsets then.
            var pausedByRest: Set<KafkaTopicPartition> = []
            var restedEnds: [KafkaTopicPartition: Int64] = [:]
            /// Handed to it and not yet taken.
            var held = 0
            var assigned: Set<KafkaTopicPartition> = []
            /// Paused by the reader itself (its lanes are full).
            var pausedByReader: Set<KafkaTopicPartition> = []
            /// Paused because it holds a full buffer.
            var pausedByBuffer: Set<KafkaTopicPartition> = []
            var started = false
            var closing = false
            /// Whether it was the last reader to close (it then waits for the consumer).
            var closedLast = false
        }

        init(
            owner: SharedConsumer, native: RDKafkaConsumer, member: Member, rest: FetchRest.Policy,
            listener: @escaping @Sendable (KafkaRebalanceEvent) -> Void
        ) {
            state = Mutex(State(rest: FetchRest(policy: rest, now: Uptime.now())))
            self.owner = owner
            self.native = native
            self.member = member
            self.listener = listener
            (stream, continuation) = AsyncStream.makeStream(of: KafkaMessage.self, bufferingPolicy: .unbounded)
        }

        /// Starts reading; the consumer joins the group once every declared reader started.
        public func start() throws {
            let first = state.withLock { s in
                defer { s.started = true }
                return !s.started
            }
            guard first else { throw KafkaError(.consumer, "reader already started") }
            try owner.started()
        }

        /// Its messages, in each partition's order; ends after ``beginClose()``.
        public var messages: KafkaMessageSequence { KafkaMessageSequence(stream: stream) { [self] in took() } }

        /// Marks everything before `nextOffset` in `partition` as processed.
        public func storeOffset(_ partition: KafkaTopicPartition, nextOffset: Int64) throws {
            try native.storeOffset(partition, nextOffset: nextOffset)
        }

        /// Stops fetching these partitions (``KafkaConsumer/pause(_:)``).
        public func pause(_ partitions: [KafkaTopicPartition]) {
            state.withLock { s in
                s.pausedByReader.formUnion(partitions)
                native.setPaused(partitions, true)
            }
        }

        /// Fetches these partitions again, unless its buffer is full or it is closing; a resting
        /// reader wakes.
        public func resume(_ partitions: [KafkaTopicPartition]) {
            state.withLock { s in
                s.pausedByReader.subtract(partitions)
                guard !s.closing else { return }
                // Under the lock, so that a buffer pause never overtakes it.
                let woken = s.rest.active(at: Uptime.now()) == .resume ? s.takeRested() : []
                native.setPaused(s.unpaused(partitions + woken), false)
            }
        }

        /// The end offset of each of its assigned partitions, as last seen by the fetcher.
        public func highWatermarks() -> [KafkaTopicPartition: Int64] {
            native.highWatermarks().filter { member.topics.contains($0.key.topic) }
        }

        /// How long since the shared poll thread last went round; nil before it started.
        public var sinceLastPoll: Duration? { owner.sinceLastPoll }

        /// Stops reading: its messages end, its partitions are paused and what is fetched for
        /// it is left for the next owner. The last reader to close makes the consumer revoke
        /// every partition (each reader's listener drains its own), commit and leave.
        public func beginClose() {
            let partitions = state.withLock { s -> [KafkaTopicPartition]? in
                guard !s.closing else { return nil }
                s.closing = true
                return Array(s.assigned)
            }
            guard let partitions else { return }
            continuation.finish()
            if owner.closing() {
                state.withLock { $0.closedLast = true }
            } else {
                native.setPaused(partitions, true)
            }
        }

        /// Returns once its messages ended; the last reader to close waits until the consumer
        /// left the group, its stored offsets committed. The others' stored offsets are
        /// committed on the consumer's interval, and at the latest then.
        public func close() async {
            beginClose()
            if state.withLock({ $0.closedLast }) { await owner.waitClosed() }
        }

        /// On the poll thread: a message of its topics.
        func deliver(_ message: KafkaMessage) {
            let take = state.withLock { s -> Bool in
                guard !s.closing else { return false }
                if s.rest.received(at: Uptime.now()) == .resume {
                    let woken = s.takeRested()
                    native.setPaused(s.unpaused(woken), false)
                }
                s.held += 1
                if s.held >= member.bufferCapacity {
                    let pause = s.assigned.subtracting(s.pausedByBuffer)
                    if !pause.isEmpty {
                        s.pausedByBuffer.formUnion(pause)
                        native.setPaused(Array(pause), true)
                    }
                }
                return true
            }
            if take { continuation.yield(message) } else { native.release() }
        }

        /// The reader took a message: a slot of the shared buffer is free, and once half of
        /// its own is, partitions its full buffer paused fetch again.
        func took() {
            native.release()
            state.withLock { s in
                s.held -= 1
                guard !s.pausedByBuffer.isEmpty, s.held <= member.bufferCapacity / 2 else { return }
                let resume = s.pausedByBuffer
                s.pausedByBuffer = []
                if !s.closing { native.setPaused(s.unpaused(Array(resume)), false) }
            }
        }

        /// On the poll thread: its partitions assigned or revoked. Every assignment starts
        /// unpaused and wakes a resting reader; a closed reader's new partitions are paused at
        /// once.
        func rebalanced(_ event: KafkaRebalanceEvent) {
            let pauseNow = state.withLock { s -> Bool in
                s.pausedByReader.subtract(event.partitions)
                s.pausedByBuffer.subtract(event.partitions)
                s.pausedByRest.subtract(event.partitions)
                if event.kind == .assigned {
                    s.assigned.formUnion(event.partitions)
                } else {
                    s.assigned.subtract(event.partitions)
                }
                if s.rest.active(at: Uptime.now()) == .resume, !s.closing {
                    let woken = s.takeRested()
                    native.setPaused(s.unpaused(woken), false)
                }
                return event.kind == .assigned && s.closing && !s.closedLast
            }
            if pauseNow { native.setPaused(event.partitions, true) }
            listener(event)
        }

        /// The consumer's poll loop ended.
        func ended() { continuation.finish() }
    }
}
