import HallmarkCore
import Logging
import Synchronization

/// A consumer-group member that hands out messages as an `AsyncSequence`.
///
/// Offsets are never stored automatically: call ``storeOffset(_:nextOffset:)`` once a message
/// (and everything before it in its partition) is processed. Stored offsets are committed on an
/// interval, synchronously when partitions are revoked, and on ``close()``.
public final class KafkaConsumer: Sendable {
    let native: RDKafkaConsumer
    private let stream: AsyncStream<KafkaMessage>
    private let continuation: AsyncStream<KafkaMessage>.Continuation
    private let closed = Latch()

    /// - Parameters:
    ///   - bufferCapacity: messages fetched ahead of the reader; the poll thread waits when full.
    ///   - readsHeaders: whether messages carry their headers (``KafkaMessage/headers``); off
    ///     for the stages, which never read them.
    ///   - wakesOnProduce: whether this process producing wakes the consumer from a rest (an idle
    ///     consumer checks for messages only every `HALLMARK_KAFKA_IDLE_FETCH_MS`): on for a
    ///     reader of the answers to what its own process sends, so an answer never waits.
    ///   - rebalanceListener: called on the poll thread when partitions are assigned or revoked.
    public init(
        configuration: KafkaConfiguration, groupID: String, topics: [String],
        bufferCapacity: Int = 512, readsHeaders: Bool = false, wakesOnProduce: Bool = false, logger: Logger,
        rebalanceListener: (@Sendable (KafkaRebalanceEvent) -> Void)? = nil
    ) throws {
        native = try RDKafkaConsumer(
            configuration: configuration, groupID: groupID, topics: topics,
            bufferCapacity: bufferCapacity, readsHeaders: readsHeaders, wakesOnProduce: wakesOnProduce,
            logger: logger, rebalanceListener: rebalanceListener)
        (stream, continuation) = AsyncStream.makeStream(of: KafkaMessage.self, bufferingPolicy: .unbounded)
    }

    /// Subscribes and starts fetching on the consumer's own thread. Call once.
    public func start() throws {
        try native.start(
            deliver: { [continuation] in continuation.yield($0) },
            finished: { [continuation, closed] in
                continuation.finish()
                closed.release()
            })
    }

    /// The messages, in partition order; ends after ``close()``.
    public var messages: KafkaMessageSequence { KafkaMessageSequence(stream: stream) { [native] in native.release() } }

    /// Marks everything before `nextOffset` in `partition` as processed.
    public func storeOffset(_ partition: KafkaTopicPartition, nextOffset: Int64) throws {
        try native.storeOffset(partition, nextOffset: nextOffset)
    }

    /// Stops fetching these partitions, so a consumer that cannot take a partition's next
    /// message yet holds no more of it in memory; messages already fetched still arrive.
    /// A partition revoked meanwhile needs no resume: every assignment starts unpaused, even
    /// of a partition this consumer had paused before it was revoked.
    public func pause(_ partitions: [KafkaTopicPartition]) { native.setPaused(partitions, true) }

    /// Fetches these partitions again, from the next message not yet handed out.
    public func resume(_ partitions: [KafkaTopicPartition]) { native.setPaused(partitions, false) }

    /// How long since the poll thread last went round (it does at least every 100 ms while it
    /// lives, whether or not there is anything to fetch); nil before ``start()``. A health
    /// check's sign that the consumer is not stuck.
    public var sinceLastPoll: Duration? {
        let last = native.lastLoop.load(ordering: .relaxed)
        return last > 0 ? Uptime.since(last) : nil
    }

    /// The end offset of each assigned partition, as last seen by the fetcher (no round trip).
    /// With a reader's own low-water marks it gives the consumer lag.
    public func highWatermarks() -> [KafkaTopicPartition: Int64] { native.highWatermarks() }

    /// Each partition's end offset of `topic` as the broker has it now: reading up to these
    /// reads everything produced before the call.
    public func endOffsets(of topic: String, timeout: Duration = .seconds(10)) async throws -> [Int32: Int64] {
        let native = self.native
        let ms = Int32(clamping: timeout.components.seconds * 1000)
        return try await BlockingCall.run(name: "hallmark-kafka-watermarks") {
            try native.endOffsets(of: topic, timeoutMilliseconds: ms)
        }
    }

    /// Commits the stored offsets now and waits for the broker.
    public func commit() async throws {
        let native = self.native
        try await BlockingCall.run(name: "hallmark-kafka-commit") { try native.commitSync() }
    }

    /// The group's committed offset for each partition (`nil` when it has none).
    public func committedOffsets(
        _ partitions: [KafkaTopicPartition], timeout: Duration = .seconds(10)
    ) async throws
        -> [KafkaTopicPartition: Int64?]
    {
        let native = self.native
        let ms = Int32(clamping: timeout.components.seconds * 1000)
        let raw = try await BlockingCall.run(name: "hallmark-kafka-committed") {
            try native.committed(partitions, timeoutMilliseconds: ms)
        }
        return raw.mapValues { $0 >= 0 ? $0 : nil }
    }

    /// Starts ``close()`` without waiting: fetching stops, the partitions are revoked (the
    /// rebalance listener runs), stored offsets are committed and ``messages`` ends.
    public func beginClose() {
        native.requestClose()
    }

    /// Stops fetching, commits the stored offsets, leaves the group and ends ``messages``.
    /// Messages fetched but not processed are simply not committed: they are read again later.
    public func close() async {
        native.requestClose()
        await closed.wait()
    }
}
