/// A message read from a topic.
public struct KafkaMessage: Sendable {
    public let topic: String
    public let partition: Int32
    public let offset: Int64
    public let key: [UInt8]?
    public let value: [UInt8]
    /// Broker or producer timestamp in milliseconds since 1970, when known.
    public let timestampMilliseconds: Int64?
    /// The consumer's assignment generation when the message was fetched (see ``KafkaRebalanceEvent``).
    public internal(set) var generation: UInt64
    /// The record's headers, when its consumer reads them (``KafkaConsumer``'s `readsHeaders`);
    /// otherwise empty. A stage never reads them: the payload is what counts.
    public let headers: [KafkaHeader]

    public init(
        topic: String, partition: Int32, offset: Int64, key: [UInt8]?, value: [UInt8],
        timestampMilliseconds: Int64? = nil, generation: UInt64 = 0, headers: [KafkaHeader] = []
    ) {
        self.generation = generation
        self.headers = headers
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.key = key
        self.value = value
        self.timestampMilliseconds = timestampMilliseconds
    }

    /// The partition this message came from.
    public var topicPartition: KafkaTopicPartition { .init(topic: topic, partition: partition) }
}

/// One partition of one topic.
public struct KafkaTopicPartition: Hashable, Sendable, CustomStringConvertible {
    public let topic: String
    public let partition: Int32
    public init(topic: String, partition: Int32) {
        self.topic = topic
        self.partition = partition
    }
    public var description: String { "\(topic)/\(partition)" }
}

/// Where the broker stored a produced message.
public struct KafkaDeliveryReport: Sendable {
    public let topic: String
    public let partition: Int32
    public let offset: Int64
}
