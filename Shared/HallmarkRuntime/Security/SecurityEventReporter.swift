import Foundation
import HallmarkCore
import HallmarkKafka
import Logging
import ServiceLifecycle

/// Sends the summaries of suppressed security events (``SecurityEventLimiter``) once their
/// window has ended, checking every second, and at shutdown those of the windows still open,
/// so a count is never lost to a quiet subject or a stop.
public struct SecurityEventReporter: Service {
    let limiter: SecurityEventLimiter
    let summary: @Sendable (SecurityEventLimiter.Summary) throws -> StageOutput
    let producer: any StageSink
    let logger: Logger
    let now: @Sendable () -> Date

    /// Reports `limiter`'s summaries through `producer`, each as `summary` makes it.
    public init(
        limiter: SecurityEventLimiter, producer: any StageSink, logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() },
        summary: @escaping @Sendable (SecurityEventLimiter.Summary) throws -> StageOutput
    ) {
        self.limiter = limiter
        self.summary = summary
        self.producer = producer
        self.logger = logger
        self.now = now
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(1)) }
            await report(all: Task.isShuttingDownGracefully)
        }
    }

    /// A summary gets five tries in about 2.4 s, so one that cannot go does not hold the rest.
    static let sendRetry = RetryPolicy(initialDelay: .milliseconds(200), maxDelay: .seconds(1), maxAttempts: 5)

    /// Sends what is due; a summary that cannot be sent after a few tries is logged (its count
    /// with it) rather than holding the others.
    func report(all: Bool) async {
        for due in limiter.summaries(now: now(), all: all) {
            do {
                try await Self.sendRetry.run { _ in try await producer.send([try summary(due)]) }
            } catch {
                logger.warning(
                    "security event summary not sent",
                    metadata: ["count": "\(due.count)", "error": "\(ErrorPolicy.safeDescription(error))"])
            }
        }
    }
}
