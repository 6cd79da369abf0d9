/// A change of a consumer's partition assignment, reported on the consumer's poll thread.
///
/// On `revoked`, the listener may block briefly to finish in-flight work and store its offsets;
/// the consumer commits the stored offsets right after the listener returns.
public enum KafkaRebalanceEvent: Sendable {
    case assigned([KafkaTopicPartition])
    case revoked([KafkaTopicPartition])
}
