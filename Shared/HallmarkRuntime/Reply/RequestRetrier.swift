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
/// Any replica may run it: rows are claimed with `FOR UPDATE SKIP LOCKED`. A request given up
/// is first marked expired (so a late reply no longer joins it), its outcome sent, and the row
/// deleted only once the broker acknowledged the outcome: a crash in between sends the
/// outcome again, never loses it.
public final class RequestRetrier: Service, Sendable {
    /// Makes the typed outcome of requests given up (e.g. a submission rejected
    /// `validation_timeout`). It may record the outcome in the requester's own tables first.
    public typealias TimeoutHandler = @Sendable ([PendingRequest]) async throws -> [StageOutput]

    let pending: PendingRequests
    let pool: PostgresPool
    let producer: any StageSink
    let interval: Duration
    let batch: Int
    let onTimeout: TimeoutHandler
    let logger: Logger
    let resent: Counter
    let timedOut: Counter

    public init(
        pending: PendingRequests, pool: PostgresPool, producer: any StageSink, service: String,
        interval: Duration = .milliseconds(200), batch: Int = 1000, logger: Logger,
        onTimeout: @escaping TimeoutHandler
    ) {
        self.pending = pending
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
        let schema = pending.schema
        let resendSeconds = pending.resendSeconds
        let (requests, expired) = try await pool.transaction { connection -> ([StageOutput], [PendingRequest]) in
            let rows = try await connection.query(
                """
                SELECT correlation_id, request_topic, request_key, request, context, attempts, created_at, expired,
                       deadline <= now()
                FROM \(unescaped: schema).hallmark_pending
                WHERE next_send_at <= now() OR deadline <= now()
                ORDER BY next_send_at LIMIT \(batch) FOR UPDATE SKIP LOCKED
                """)
            var requests: [StageOutput] = [], expired: [PendingRequest] = [], resendIDs: [UUID] = []
            for row in rows {
                let (id, topic, key, request, context, attempts, created, wasExpired, due) =
                    try row.decode((UUID, String, Data?, Data, Data, Int32, Date, Bool, Bool).self)
                if wasExpired || due {
                    expired.append(
                        PendingRequest(
                            correlationID: id, context: [UInt8](context), attempts: Int(attempts),
                            createdAt: created))
                } else {
                    requests.append(StageOutput(topic: topic, key: key.map { [UInt8]($0) }, value: [UInt8](request)))
                    resendIDs.append(id)
                }
            }
            if !resendIDs.isEmpty {
                try await connection.execute(
                    """
                    UPDATE \(unescaped: schema).hallmark_pending
                    SET attempts = attempts + 1,
                        next_send_at = now() + \(resendSeconds) * power(2, least(attempts, 6)) * interval '1 second'
                    WHERE correlation_id = ANY(\(PostgresArray(resendIDs)))
                    """)
            }
            if !expired.isEmpty {
                // A late reply no longer joins these; their rows go once their outcomes are sent.
                try await connection.execute(
                    """
                    UPDATE \(unescaped: schema).hallmark_pending SET expired = true,
                        next_send_at = now() + \(resendSeconds) * interval '1 second'
                    WHERE correlation_id = ANY(\(PostgresArray(expired.map(\.correlationID))))
                    """)
            }
            return (requests, expired)
        }
        if !requests.isEmpty {
            try await producer.send(requests)
            resent.increment(by: requests.count)
        }
        if !expired.isEmpty {
            try await producer.send(try await onTimeout(expired))
            try await pool.execute(
                """
                DELETE FROM \(unescaped: schema).hallmark_pending
                WHERE correlation_id = ANY(\(PostgresArray(expired.map(\.correlationID)))) AND expired
                """)
            timedOut.increment(by: expired.count)
            logger.notice("requests given up", metadata: ["requests": "\(expired.count)"])
        }
        return requests.count + expired.count
    }
}
