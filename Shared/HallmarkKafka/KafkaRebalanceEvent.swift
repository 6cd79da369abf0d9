/// A change of a consumer's partition assignment, reported on the consumer's poll thread.
///
/// On `revoked`, the listener may block briefly to finish in-flight work and store its offsets;
/// the consumer commits the stored offsets right after the listener returns.
public struct KafkaRebalanceEvent: Sendable {
    public enum Kind: Sendable { case assigned, revoked }
    public let kind: Kind
    public let partitions: [KafkaTopicPartition]
    /// Increases with every assignment change. Messages carry the generation they were fetched
    /// in (``KafkaMessage/generation``), so a reader can tell messages fetched before a partition
    /// was revoked and assigned again from those fetched after.
    public let generation: UInt64

    public init(kind: Kind, partitions: [KafkaTopicPartition], generation: UInt64) {
        self.kind = kind
        self.partitions = partitions
        self.generation = generation
    }
}
