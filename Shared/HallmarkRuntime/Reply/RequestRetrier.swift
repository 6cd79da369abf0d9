import Foundation
import HallmarkKafka
import HallmarkPostgres
import Logging
import Metrics
import ServiceLifecycle

/// Re-sends pending requests that got no reply in time, under the same message id (so the
/// other stage's idempotency by message id makes a re-send harmless), backing off (the
/// interval doubles per attempt, up to 64 times: a stage that is down for a while gets a few
/// re-sends, not a storm), and gives up on those
/// past their deadline, handing them to the requester's timeout handler for a typed outcome.
///
/// Any replica may run it: the book (``RequestBook``) claims rows with `FOR UPDATE SKIP LOCKED`.
/// A request given up is first marked so (a late reply no longer joins it), its outcome sent,
/// and it is forgotten only once the broker acknowledged the outcome: a crash in between sends
/// the outcome again, never loses it.
public final class RequestRetrier: Service, Sendable {
    /// Makes the typed outcome of requests given up (e.g. a submission rejected
    /// `validation_timeout`). It may record the outcome in the requester's own tables first.
    public typealias TimeoutHandler = @Sendable ([PendingRequest]) async throws -> [StageOutput]

    let book: any RequestBook
    let pool: PostgresPool
    let producer: any StageSink
    let interval: Duration
    let batch: Int
    let onTimeout: TimeoutHandler
    let logger: Logger
    let resent: Counter
    let timedOut: Counter

    public init(
        book: any RequestBook, pool: PostgresPool, producer: any StageSink, service: String,
        interval: Duration = .milliseconds(200), batch: Int = 1000, logger: Logger,
        onTimeout: @escaping TimeoutHandler
    ) {
        self.book = book
        self.pool = pool
        self.producer = producer
        self.interval = interval
        self.batch = batch
        self.onTimeout = onTimeout
        self.logger = logger
        resent = Counter(label: "hallmark_requests_resent_total", dimensions: [("service", service)])
        timedOut = Counter(label: "hallmark_requests_timed_out_total", dimensions: [("service", service)])
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                // Work through a backlog at once; sleep only when nothing was due.
                while try await pass() > 0 && !Task.isShuttingDownGracefully {}
            } catch {
                logger.warning("pending requests not retried", metadata: ["error": "\(ErrorPolicy.safeDescription(error))"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.interval) }
        }
    }

    /// One pass: re-sends due requests and gives up expired ones; returns how many it handled.
    @discardableResult
    public func pass() async throws -> Int {
        let due = try await pool.transaction { try await self.book.claimDue(limit: self.batch, on: $0) }
        if !due.resend.isEmpty {
            try await producer.send(due.resend)
            resent.increment(by: due.resend.count)
        }
        if !due.expired.isEmpty {
            try await producer.send(try await onTimeout(due.expired))
            try await pool.withConnection { try await self.book.forget(due.expired, on: $0) }
            timedOut.increment(by: due.expired.count)
            logger.notice("requests given up", metadata: ["requests": "\(due.expired.count)"])
        }
        return due.resend.count + due.expired.count
    }
}
