import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkRuntime
import ServiceLifecycle
import Synchronization

/// Reads `hallmark.metrics` and `hallmark.security` into the ``OpsBoard`` the `/ops` page
/// draws, from the moment the edge starts (a replica's charts fill as snapshots arrive; reading
/// the topics' history would mean every snapshot of their retention at each start). Its
/// consumer group is its own and never commits, so it changes nothing for anyone else.
package final class OpsFeed: Service, Sendable {
    /// Where its source is opened when it runs (the source is its own, closed when it stops).
    let transport: StageTransport
    let metricsTopic: String
    let securityTopic: String
    let instance: String
    private let board: Mutex<OpsBoard>

    package init(
        transport: StageTransport, metricsTopic: String, securityTopic: String, instance: String,
        board: OpsBoard = OpsBoard()
    ) {
        self.transport = transport
        self.metricsTopic = metricsTopic
        self.securityTopic = securityTopic
        self.instance = instance
        self.board = Mutex(board)
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
        let consumer = try transport.source(
            StageSourceRequest(
                groupID: "hallmark-edge-ops-\(UUID().uuidString.lowercased())", topics: [metricsTopic, securityTopic],
                bufferCapacity: 512, startsAtEnd: true))
        try consumer.start()
        await withGracefulShutdownHandler {
            await ingestAll(consumer)
        } onGracefulShutdown: {
            consumer.beginClose()
        }
        await consumer.close()
    }

    /// Ingests every message until the source ends.
    private func ingestAll(_ source: some StageSource) async {
        for await message in source.messages { ingest(topic: message.topic, value: message.value) }
    }
}
