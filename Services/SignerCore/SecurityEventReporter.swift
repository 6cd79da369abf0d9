import Foundation
import HallmarkKafka
import HallmarkRuntime
import Logging
import ServiceLifecycle

/// Sends the summaries of suppressed security events (``SecurityEventLimiter``) once their
/// window has ended, checking every second, and at shutdown those of the windows still open,
/// so a count is never lost to a quiet partner or a stop.
public struct SecurityEventReporter: Service {
    let limiter: SecurityEventLimiter
    let events: SignerEvents
    let producer: KafkaProducer
    let logger: Logger
    let now: @Sendable () -> Date

    /// Reports `processor`'s suppressed events through `producer`.
    public init(processor: SignerProcessor, producer: KafkaProducer, logger: Logger) {
        limiter = processor.limiter
        events = processor.events
        self.producer = producer
        self.logger = logger
        now = processor.now
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(1)) }
            await report(all: Task.isShuttingDownGracefully)
        }
    }

    /// Sends what is due; a summary that cannot be sent after a few tries is logged (its count
    /// with it) rather than holding the others.
    func report(all: Bool) async {
        for summary in limiter.summaries(now: now(), all: all) {
            var attempt = 0
            while true {
                do {
                    try await producer.send([try events.summary(summary)])
                    break
                } catch {
                    attempt += 1
                    guard attempt < 5 else {
                        logger.warning("security event summary not sent", metadata: [
                            "count": "\(summary.count)", "error": "\(ErrorPolicy.safeDescription(error))",
                        ])
                        break
                    }
                    try? await Task.sleep(for: .milliseconds(200 * attempt))
                }
            }
        }
    }
}
