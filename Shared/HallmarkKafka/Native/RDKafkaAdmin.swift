import Logging
import rdkafka

/// Topic administration through a short-lived producer handle.
enum RDKafkaAdmin {
    /// Creates each topic that does not exist yet; existing ones are left as they are.
    static func createTopics(
        _ names: [String], partitions: Int32, configuration: KafkaConfiguration,
        logger: Logger, timeoutMilliseconds: Int32
    ) throws -> [String] {
        var properties = configuration.baseProperties
        properties.merge(configuration.properties) { _, override in override }
        let client = try RDKafkaClient(role: .producer, properties: properties, context: RDKafkaContext(logger: logger))
        guard let queue = rd_kafka_queue_new(client.handle) else { throw KafkaError(.admin, "queue_new failed") }
        defer { rd_kafka_queue_destroy(queue) }

        var errstr = [CChar](repeating: 0, count: 512)
        var newTopics: [OpaquePointer?] = []
        defer { newTopics.forEach { rd_kafka_NewTopic_destroy($0) } }
        for name in names {
            guard let t = rd_kafka_NewTopic_new(name, partitions, -1, &errstr, errstr.count) else {
                throw KafkaError(.admin, "topic \(name): \(RDKafkaClient.string(errstr))")
            }
            // Values up to the configured limit, with room for key and framing (a broker that
            // does not know the setting ignores it).
            let limit = String(configuration.maxMessageBytes + KafkaConfiguration.recordOverheadBytes)
            _ = rd_kafka_NewTopic_set_config(t, "max.message.bytes", limit)
            newTopics.append(t)
        }
        let options = rd_kafka_AdminOptions_new(client.handle, RD_KAFKA_ADMIN_OP_CREATETOPICS)
        defer { rd_kafka_AdminOptions_destroy(options) }
        rd_kafka_AdminOptions_set_operation_timeout(options, timeoutMilliseconds, &errstr, errstr.count)
        rd_kafka_AdminOptions_set_request_timeout(options, timeoutMilliseconds, &errstr, errstr.count)
        newTopics.withUnsafeMutableBufferPointer { buf in
            rd_kafka_CreateTopics(client.handle, buf.baseAddress, buf.count, options, queue)
        }
        guard let event = rd_kafka_queue_poll(queue, timeoutMilliseconds + 1000) else {
            throw KafkaError(.timeout, "CreateTopics got no answer")
        }
        defer { rd_kafka_event_destroy(event) }
        let eventErr = rd_kafka_event_error(event)
        guard eventErr == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError(.admin, "CreateTopics: \(RDKafkaClient.describe(eventErr))", librdkafkaCode: eventErr.rawValue)
        }
        var created: [String] = []
        guard let result = rd_kafka_event_CreateTopics_result(event) else { return created }
        var count = 0
        guard let results = rd_kafka_CreateTopics_result_topics(result, &count) else { return created }
        for i in 0..<count {
            let r = results[i]
            let name = String(cString: rd_kafka_topic_result_name(r))
            let err = rd_kafka_topic_result_error(r)
            switch err {
            case RD_KAFKA_RESP_ERR_NO_ERROR: created.append(name)
            case RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS: break
            default:
                let detail = rd_kafka_topic_result_error_string(r).map { String(cString: $0) } ?? RDKafkaClient.describe(err)
                throw KafkaError(.admin, "create topic \(name): \(detail)", librdkafkaCode: err.rawValue)
            }
        }
        return created
    }
}
