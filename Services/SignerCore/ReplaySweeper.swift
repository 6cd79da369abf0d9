import HallmarkPostgres
import Logging
import Metrics
import ServiceLifecycle

/// Removes expired replay entries every interval (any replica may; deletes are idempotent).
public struct ReplaySweeper: Service {
    let store: ReplayStore
    let pool: PostgresPool
    let interval: Duration
    let logger: Logger
    private let removed = Counter(label: "hallmark_signer_replay_expired_total", dimensions: [("service", "signer")])

    public init(store: ReplayStore, pool: PostgresPool, interval: Duration, logger: Logger) {
        self.store = store
        self.pool = pool
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                var n = 0
                repeat {
                    n = try await store.sweep(pool: pool)
                    removed.increment(by: n)
                } while n > 0 && !Task.isShuttingDownGracefully
            } catch {
                logger.warning("replay sweep failed", metadata: ["error": "\((error as? PostgresError)?.description ?? "error")"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}
