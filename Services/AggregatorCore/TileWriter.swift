import Foundation
import HallmarkPostgres
import Logging
import Metrics
import ServiceLifecycle

/// Keeps a ``TileDirectory`` (`HALLMARK_AGGREGATOR_TILES_DIR`) up to the log's latest
/// checkpoint as the log grows, each `interval`, off the append path. Replicas sharing the
/// directory take turns: a round holds a transaction-scoped advisory lock, and a replica that
/// does not get it skips the round, so two never write at once and the checkpoint only grows.
package struct TileWriter: Service {
    let directory: TileDirectory
    let store: LogStore
    let pool: PostgresPool
    let interval: Duration
    let logger: Logger

    package init(directory: TileDirectory, store: LogStore, pool: PostgresPool, interval: Duration, logger: Logger) {
        self.directory = directory
        self.store = store
        self.pool = pool
        self.interval = interval
        self.logger = logger
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await round()
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// One round; nil when another replica held the turn, the log is empty or the round
    /// failed (logged and counted; the next round starts from the directory's checkpoint).
    @discardableResult
    package func round() async -> TileDirectory.Written? {
        do {
            let written = try await pool.withConnection { connection in
                try await connection.transaction { connection -> TileDirectory.Written? in
                    let turn = try await connection.query(
                        "SELECT pg_try_advisory_xact_lock(hashtext(\(store.schema)), hashtext('tile-directory'))")
                    guard try turn.decode(Bool.self).first == true,
                        let latest = try await store.latestCheckpoint(on: connection)
                    else { return nil }
                    return try await directory.write(latest, from: store, on: connection)
                }
            }
            if let written {
                Counter(label: "hallmark_aggregator_tiles_written_total", dimensions: [("service", "aggregator")])
                    .increment(by: written.written)
                Gauge(label: "hallmark_aggregator_tiles_tree_size", dimensions: [("service", "aggregator")])
                    .record(Double(written.treeSize))
                if written.ahead {
                    logger.warning(
                        "the tile directory holds a larger checkpoint than the log; left as it is",
                        metadata: ["tree_size": "\(written.treeSize)"])
                }
            }
            return written
        } catch {
            Counter(label: "hallmark_aggregator_tile_errors_total", dimensions: [("service", "aggregator")]).increment()
            logger.error("the tile directory was not brought up to date", metadata: ["error": "\(error)"])
            return nil
        }
    }
}
