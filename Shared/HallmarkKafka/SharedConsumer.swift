import HallmarkCore
import Logging
import Synchronization

/// One consumer-group member for all of a process's stages.
///
/// Each stage reads its own topics through a ``Reader``, as if it had a consumer of its own:
/// its messages, its assignment changes, its pauses, its offsets. The broker sees one member:
/// one fetch per fetch wait for all of the process's partitions, one heartbeat, one rebalance
/// for all stages. A consumer per stage cost the broker a fetch every wait per stage that was
/// awake, and on Tansu that is most of what a stream costs it (docs/operations.md §2).
///
/// The members are declared once (``declare(_:)``) before any of them opens; the consumer
/// joins the group when the last of them starts, and leaves it when the last closes. A reader
/// closed before the others stops taking messages (its partitions are paused, what is fetched
/// for it is left for the next owner) while the others go on: a service group stops its
/// services one after the other.
public final class SharedConsumer: Sendable {
    /// A reader that will share the consumer.
    public struct Member: Sendable, Hashable {
        /// The group it read in on its own: offsets committed there carry over
        /// (``carryOverOffsets()``).
        public var groupID: String
        public var topics: [String]
        /// Messages fetched ahead of it at most; past that its partitions are paused.
        public var bufferCapacity: Int
        /// Whether this process producing should wake the consumer from a rest
        /// (``KafkaConsumer/init(configuration:groupID:topics:bufferCapacity:readsHeaders:wakesOnProduce:logger:rebalanceListener:)``).
        public var wakesOnProduce: Bool

        public init(groupID: String, topics: [String], bufferCapacity: Int, wakesOnProduce: Bool) {
            self.groupID = groupID
            self.topics = topics
            self.bufferCapacity = bufferCapacity
            self.wakesOnProduce = wakesOnProduce
        }
    }

    /// The group the shared consumer joins: the service's.
    public let groupID: String
    let configuration: KafkaConfiguration
    let logger: Logger
    let state = Mutex(State())
    private let closed = Latch()

    struct State {
        var native: RDKafkaConsumer?
        var members: [Member] = []
        /// The open readers, by the topics they read, and in the order they opened.
        var readers: [String: Reader] = [:]
        var opened: [Reader] = []
        var started = 0
        var closing = 0
    }

    /// - Parameter groupID: the group it joins (the service's).
    public init(configuration: KafkaConfiguration, groupID: String, logger: Logger) {
        self.configuration = configuration
        self.groupID = groupID
        self.logger = logger
    }

    /// Declares the readers that will share the consumer; call once, before any opens. A
    /// member that reads a topic an earlier one reads is left out: it needs its own consumer
    /// (``open(_:rebalanceListener:)`` returns nil for it). Fewer than two members share
    /// nothing: each has a consumer of its own, in its own group, as before.
    public func declare(_ candidates: [Member]) throws {
        var members: [Member] = []
        var topics = Set<String>()
        for member in candidates where !member.topics.isEmpty && topics.isDisjoint(with: member.topics) {
            members.append(member)
            topics.formUnion(member.topics)
        }
        guard members.count >= 2 else { return }
        // Each reader rests on its own (``Reader``); the consumer as a whole never does.
        var whole = configuration
        whole.idleAfterMilliseconds = 0
        let native = try RDKafkaConsumer(
            configuration: whole, groupID: groupID, topics: members.flatMap(\.topics),
            bufferCapacity: members.reduce(0) { $0 + max(1, $1.bufferCapacity) }, logger: logger,
            rebalanceListener: { [self] event in rebalanced(event) })
        try state.withLock { s in
            guard s.native == nil else { throw KafkaError(.consumer, "shared consumer declared twice") }
            s.native = native
            s.members = members
        }
    }

    /// The declared members.
    public var members: [Member] { state.withLock { $0.members } }

    /// A reader for a declared member (matched by group and topics), nil for any other: it
    /// reads through a consumer of its own.
    public func open(_ member: Member, rebalanceListener: @escaping @Sendable (KafkaRebalanceEvent) -> Void) -> Reader? {
        state.withLock { s in
            guard let native = s.native,
                let declared = s.members.first(where: { $0.groupID == member.groupID && $0.topics == member.topics }),
                member.topics.allSatisfy({ s.readers[$0] == nil })
            else { return nil }
            let reader = Reader(
                owner: self, native: native, member: declared, rest: FetchRest.Policy(configuration),
                listener: rebalanceListener)
            for topic in member.topics { s.readers[topic] = reader }
            s.opened.append(reader)
            return reader
        }
    }

    /// A reader started: the last one to start joins the group.
    func started() throws {
        let ready = state.withLock { s -> (RDKafkaConsumer, [String: Reader], [Reader])? in
            s.started += 1
            guard s.started == s.members.count, let native = s.native else { return nil }
            return (native, s.readers, s.opened)
        }
        guard let (native, readers, each) = ready else { return }
        try native.start(
            deliver: { message in
                guard let reader = readers[message.topic] else {
                    native.release()  // not subscribed to: cannot happen
                    return
                }
                reader.deliver(message)
            },
            finished: { [closed] in
                each.forEach { $0.ended() }
                closed.release()
            },
            turn: { now in each.reduce(Int32(100)) { min($0, $1.restTurn(now: now)) } })
    }

    /// A reader began closing: the last one makes the consumer leave the group. Returns
    /// whether it was the last.
    func closing() -> Bool {
        let native = state.withLock { s -> RDKafkaConsumer? in
            s.closing += 1
            return s.closing == s.members.count ? s.native : nil
        }
        native?.requestClose()
        return native != nil
    }

    /// Waits until the consumer left the group, its stored offsets committed.
    func waitClosed() async { await closed.wait() }

    /// Called on the poll thread: each reader hears of its own topics' partitions.
    private func rebalanced(_ event: KafkaRebalanceEvent) {
        let readers = state.withLock { s in s.readers }
        var byReader: [ObjectIdentifier: (Reader, [KafkaTopicPartition])] = [:]
        for partition in event.partitions {
            guard let reader = readers[partition.topic] else { continue }
            byReader[ObjectIdentifier(reader), default: (reader, [])].1.append(partition)
        }
        for (reader, partitions) in byReader.values {
            reader.rebalanced(KafkaRebalanceEvent(kind: event.kind, partitions: partitions, generation: event.generation))
        }
    }

    /// How long since the poll thread last went round; nil before it started.
    var sinceLastPoll: Duration? {
        guard let native = state.withLock({ $0.native }) else { return nil }
        let last = native.lastLoop.load(ordering: .relaxed)
        return last > 0 ? Uptime.since(last) : nil
    }
}
