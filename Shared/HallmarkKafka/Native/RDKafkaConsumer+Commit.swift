import rdkafka

extension RDKafkaConsumer {
    /// Commits these offsets for the consumer's group now, waiting for the broker (blocking).
    /// Before the consumer joins, it commits as a member of no generation, which a broker
    /// takes while the group has no members.
    func commitSync(_ offsets: [KafkaTopicPartition: Int64]) throws {
        guard !offsets.isEmpty, let list = rd_kafka_topic_partition_list_new(Int32(offsets.count)) else { return }
        defer { rd_kafka_topic_partition_list_destroy(list) }
        for (p, offset) in offsets { rd_kafka_topic_partition_list_add(list, p.topic, p.partition).pointee.offset = offset }
        let err = rd_kafka_commit(client.handle, list, 0)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError(.consumer, "commit: \(RDKafkaClient.describe(err))", librdkafkaCode: err.rawValue)
        }
        for i in 0..<Int(list.pointee.cnt) where list.pointee.elems[i].err != RD_KAFKA_RESP_ERR_NO_ERROR {
            let e = list.pointee.elems[i].err
            throw KafkaError(.consumer, "commit: \(RDKafkaClient.describe(e))", librdkafkaCode: e.rawValue)
        }
    }
}
