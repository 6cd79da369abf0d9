import HallmarkKafka
import Logging

/// Where a stage's messages come from: one member of a consumer group, with its assignment.
///
/// ``HallmarkKafka/KafkaConsumer`` is the real one. An in-memory one (the test support
/// module's `MemoryBroker`) runs the whole stage loop — dispatch, retries, rejections,
/// offsets, shutdown — with no broker, the way NIOEmbedded stands in for a socket.
public protocol StageSource: AnyObject, Sendable {
    associatedtype Messages: AsyncSequence<KafkaMessage, Never> & Sendable

    /// The fetched messages, in each partition's order; ends after ``beginClose()``.
    var messages: Messages { get }
    /// Joins the group; assignments are reported to the rebalance listener it was opened with.
    func start() throws
    /// Stops fetching these partitions (their lanes are full).
    func pause(_ partitions: [KafkaTopicPartition])
    /// Fetches these partitions again.
    func resume(_ partitions: [KafkaTopicPartition])
    /// Marks everything before `nextOffset` done, for the next commit.
    func storeOffset(_ partition: KafkaTopicPartition, nextOffset: Int64) throws
    /// Each assigned partition's end offset, as last known.
    func highWatermarks() -> [KafkaTopicPartition: Int64]
    /// Time since the source last polled, for liveness; nil before it starts.
    var sinceLastPoll: Duration? { get }
    /// Starts leaving the group: partitions are revoked (the listener drains them) and the
    /// message sequence ends.
    func beginClose()
    /// Waits until the source has left the group, its stored offsets committed.
    func close() async
}

/// How a stage (or another reader, such as the edge's answer router) opens its source.
public struct StageSourceRequest: Sendable {
    /// The consumer group, and the topics it reads.
    public let groupID: String, topics: [String]
    /// Messages fetched ahead of the reader at most.
    public let bufferCapacity: Int
    /// Whether a group with no committed offset starts at each partition's end (Kafka's
    /// `auto.offset.reset=latest`: a reader of what happens from now on) rather than its start.
    public let startsAtEnd: Bool
    /// Whether what it reads answers what its own process sends (the edge's answers, the
    /// aggregator's token results): then this process producing wakes the source from a rest.
    public let wakesOnProduce: Bool
    /// Called on the source's thread for every assignment change; on `revoked` it returns
    /// once the partitions' in-flight messages are done and their offsets stored.
    public let rebalanceListener: @Sendable (KafkaRebalanceEvent) -> Void

    /// A request; without a `rebalanceListener`, assignments go unheard.
    public init(
        groupID: String, topics: [String], bufferCapacity: Int, startsAtEnd: Bool = false,
        wakesOnProduce: Bool = false,
        rebalanceListener: @escaping @Sendable (KafkaRebalanceEvent) -> Void = { _ in }
    ) {
        self.groupID = groupID
        self.topics = topics
        self.bufferCapacity = bufferCapacity
        self.startsAtEnd = startsAtEnd
        self.wakesOnProduce = wakesOnProduce
        self.rebalanceListener = rebalanceListener
    }
}

extension StageSourceRequest {
    /// What the request asks of a shared consumer.
    public var member: SharedConsumer.Member {
        SharedConsumer.Member(
            groupID: groupID, topics: topics, bufferCapacity: bufferCapacity, wakesOnProduce: wakesOnProduce)
    }
}

/// A service that reads through a source it can declare before it runs, so that the process
/// can share one consumer among such readers (``SharedConsumer``).
public protocol SharedConsumerMember {
    /// The group it reads in when it has a consumer of its own.
    var consumerGroup: String { get }
    /// What it will ask of a shared consumer; nil for a reader that needs a consumer of its
    /// own.
    var consumerMember: SharedConsumer.Member? { get }
}

/// Where a stage's outputs go: ``HallmarkKafka/KafkaProducer``, or an in-memory sink.
public protocol StageSink: Sendable {
    associatedtype Delivery: StageDelivery

    /// The largest message (key and value) the sink takes.
    var maxMessageBytes: Int { get }
    /// Sends and waits until every message is acknowledged.
    func send(_ messages: [KafkaOutgoingMessage]) async throws
    /// Queues messages in order; the returned delivery waits for their acknowledgements.
    func enqueue(_ messages: [KafkaOutgoingMessage]) async throws -> Delivery
    /// Queues messages in order and calls `done` once every one is acknowledged, or with the
    /// first failure, from any thread: for a caller that waits without a task of its own.
    func enqueue(_ messages: [KafkaOutgoingMessage], then done: @escaping @Sendable (Result<Void, any Error>) -> Void)
}

/// Messages queued by a ``StageSink``.
public protocol StageDelivery: Sendable {
    /// Returns once all are acknowledged; throws the first failure.
    func wait() async throws
}

extension StageSink {
    /// By default, ``send(_:)`` in a task of its own.
    public func enqueue(
        _ messages: [KafkaOutgoingMessage], then done: @escaping @Sendable (Result<Void, any Error>) -> Void
    ) {
        Task {
            do {
                try await send(messages)
                done(.success(()))
            } catch {
                done(.failure(error))
            }
        }
    }

    /// Whether a message of this size can be sent at all.
    public func fits(key: [UInt8]?, value: [UInt8]) -> Bool { (key?.count ?? 0) + value.count <= maxMessageBytes }
}

/// A service's two ends on the broker: how its readers open their sources, and the one sink
/// (the process's producer) every output goes to.
///
/// ``ServiceRunner`` gives every service ``kafka(_:producer:logger:)``; a test that runs
/// services in one process gives them an in-memory broker's (`MemoryBroker.transport()`).
/// Whoever opens a source owns it and closes it; the sink stays its maker's.
public struct StageTransport: Sendable {
    /// Opens a source (a stage's when it starts).
    public let source: @Sendable (StageSourceRequest) throws -> any StageSource
    /// Where outputs go.
    public let sink: any StageSink

    public init(source: @escaping @Sendable (StageSourceRequest) throws -> any StageSource, sink: any StageSink) {
        self.source = source
        self.sink = sink
    }

    /// A Kafka consumer in the group, and the producer.
    /// - Parameter shared: the process's one consumer (``ServiceRunner``): a request it was
    ///   declared for reads through it, any other through a consumer of its own.
    public static func kafka(
        _ configuration: KafkaConfiguration, producer: KafkaProducer, logger: Logger, shared: SharedConsumer? = nil
    ) -> StageTransport {
        StageTransport(
            source: { request in
                if let shared, !request.startsAtEnd,
                    let reader = shared.open(request.member, rebalanceListener: request.rebalanceListener)
                {
                    return reader
                }
                var configuration = configuration
                if request.startsAtEnd { configuration.properties["auto.offset.reset"] = "latest" }
                return try KafkaConsumer(
                    configuration: configuration, groupID: request.groupID, topics: request.topics,
                    bufferCapacity: request.bufferCapacity, wakesOnProduce: request.wakesOnProduce, logger: logger,
                    rebalanceListener: request.rebalanceListener)
            }, sink: producer)
    }
}

extension KafkaConsumer: StageSource {}
extension SharedConsumer.Reader: StageSource {}
extension KafkaProducer: StageSink {}
extension KafkaDeliveryGroup: StageDelivery {}
