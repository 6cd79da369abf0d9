import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import Logging
import ServiceLifecycle
import Synchronization

/// Reads `hallmark.metrics` and `hallmark.security` into the ``OpsBoard`` the `/ops` page
/// draws, from the moment the edge starts (a replica's charts fill as snapshots arrive; reading
/// the topics' history would mean every snapshot of their retention at each start). Its
/// consumer group is its own and never commits, so it changes nothing for anyone else.
package final class OpsFeed: Service, Sendable {
    let kafka: KafkaConfiguration
    let metricsTopic: String
    let securityTopic: String
    let instance: String
    let logger: Logger
    private let board: Mutex<OpsBoard>

    package init(
        kafka: KafkaConfiguration, metricsTopic: String, securityTopic: String, instance: String,
        board: OpsBoard = OpsBoard(), logger: Logger
    ) {
        self.kafka = kafka
        self.metricsTopic = metricsTopic
        self.securityTopic = securityTopic
        self.instance = instance
        self.board = Mutex(board)
        self.logger = logger
    }

    /// The page's data now.
    package func data(now: Date = Date()) -> OpsBoard.Data {
        board.withLock { $0.data(now: now) }
    }

    /// Adds a record of either topic; anything that does not decode is skipped (the services
    /// wrote it, and the page shows what it can).
    package func ingest(topic: String, value: [UInt8]) {
        if topic == metricsTopic {
            guard let snapshot = try? JSONCoding.decode(Message<MetricsSnapshot>.self, from: value) else { return }
            board.withLock { $0.add(snapshot) }
        } else if topic == securityTopic {
            guard let event = try? JSONCoding.decode(Message<SecurityEvent>.self, from: value) else { return }
            board.withLock { $0.add(event) }
        }
    }

    package func run() async throws {
        var config = kafka
        config.properties["auto.offset.reset"] = "latest"
        let consumer = try KafkaConsumer(
            configuration: config, groupID: "hallmark-edge-ops-\(UUID().uuidString.lowercased())",
            topics: [metricsTopic, securityTopic], logger: logger)
        try consumer.start()
        await withGracefulShutdownHandler {
            for await message in consumer.messages { ingest(topic: message.topic, value: message.value) }
        } onGracefulShutdown: {
            consumer.beginClose()
        }
        await consumer.close()
    }
}
