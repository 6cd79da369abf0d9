import Logging
import ServiceLifecycle

/// A service's work done now and again every interval until graceful shutdown: the shape of
/// ``TableStatistics`` and ``InboxSweeper``. (``PeriodicSweeper`` differs: it lets a sweep in
/// flight finish at shutdown.)
enum Repeating {
    /// Runs `round` now and then every `interval` until graceful shutdown, which cancels the
    /// wait instead of waiting it out. A round that throws is logged as `failure`, with the
    /// error's safe description, and the next one goes on.
    static func run(
        every interval: Duration, logger: Logger, failure: Logger.Message,
        _ round: @escaping @Sendable () async throws -> Void
    ) async {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await round()
                } catch {
                    logger.warning(failure, metadata: ["error": "\(ErrorPolicy.safeDescription(error))"])
                }
                try await Task.sleep(for: interval)
            }
        }
    }
}
