import HallmarkPostgres
import Logging
import Metrics
import ServiceLifecycle

/// Deletes expired rows every interval, in bounded chunks until none are left (any replica
/// may run it; deletes are idempotent). Stops at graceful shutdown.
public struct PeriodicSweeper: Service {
    let what: String
    let interval: Duration
    let logger: Logger
    let removed: Counter
    let sweep: @Sendable () async throws -> Int

    /// - Parameters:
    ///   - what: names the rows in logs, e.g. `replay`.
    ///   - counter: the metric counting removed rows, e.g. `hallmark_signer_replay_expired_total`.
    ///   - sweep: removes one chunk and returns how many rows went.
    public init(
        what: String, counter: String, service: String, interval: Duration, logger: Logger,
        sweep: @escaping @Sendable () async throws -> Int
    ) {
        self.what = what
        self.interval = interval
        self.logger = logger
        self.sweep = sweep
        removed = Counter(label: counter, dimensions: [("service", service)])
    }

    public func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                var n = 0
                repeat {
                    n = try await sweep()
                    removed.increment(by: n)
                } while n > 0 && !Task.isShuttingDownGracefully
            } catch {
                logger.warning(
                    "\(what) sweep failed", metadata: ["error": "\((error as? PostgresError)?.description ?? "error")"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}
