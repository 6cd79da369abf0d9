import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import HallmarkRuntime
import Logging

/// Reads `hallmark.metrics` and `hallmark.security` into a ``MetricsBoard``, from their beginning.
struct MetricsFeed: Sendable {
    let kafka: KafkaConfiguration
    let metricsTopic: String
    let securityTopic: String
    let logger: Logger

    init(environment: [String: String], logger: Logger) throws {
        let settings = Settings(environment)
        kafka = try KafkaConfiguration.fromEnvironment(environment)
        metricsTopic = try settings.value(ServiceRunner.Variable.metricsTopic)
        securityTopic = try settings.value(StageConfiguration.Variable.securityTopic)
        self.logger = logger
    }

    /// A live reader of both topics from their earliest offsets, under a group of its own that
    /// never commits (so it changes nothing for anyone else).
    func consumer(topics: [String]) throws -> KafkaConsumer {
        var config = kafka
        config.properties["auto.offset.reset"] = "earliest"
        return try KafkaConsumer(
            configuration: config, groupID: "hallmark-top-\(UUID().uuidString.lowercased())",
            topics: topics, logger: logger)
    }

    /// Adds a record of either topic to the board; anything that does not decode is skipped.
    func ingest(_ message: KafkaMessage, into board: inout MetricsBoard) {
        if message.topic == metricsTopic {
            if let snapshot = try? JSONCoding.decode(Message<MetricsSnapshot>.self, from: message.value) { board.add(snapshot) }
        } else if message.topic == securityTopic {
            if let event = try? JSONCoding.decode(Message<SecurityEvent>.self, from: message.value) { board.add(event) }
        }
    }

    /// The board as of now: both topics read up to the end offsets they had when this started
    /// (or until `timeout`, since a broker's end offsets can lag what it serves).
    func readToEnd(timeout: Duration) async throws -> MetricsBoard {
        var board = MetricsBoard()
        try await TopicReader(kafka: kafka, logger: logger).readToEnd(
            [metricsTopic, securityTopic], groupPrefix: "hallmark-top",
            timeout: timeout
        ) { ingest($0, into: &board) }
        return board
    }
}
