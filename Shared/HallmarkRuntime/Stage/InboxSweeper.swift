import HallmarkPostgres
import Logging
import ServiceLifecycle

/// Deletes inbox entries older than the retention, so `<schema>.hallmark_inbox` stays bounded,
/// and forgets their answers (kept for redeliveries) once older than the answer retention.
///
/// The retention must exceed how long a message can be redelivered (the topic's retention);
/// an id swept earlier would be processed again if it came back.
public struct InboxSweeper: Service {
    let database: StageDatabase
    let retention: Duration
    let answerRetention: Duration
    let interval: Duration
    let logger: Logger

    /// - Parameters:
    ///   - retention: `HALLMARK_INBOX_RETENTION_HOURS`, default 7 days (Kafka's default retention).
    ///   - answerRetention: `HALLMARK_INBOX_ANSWER_RETENTION_HOURS`, default a day: a redelivery
    ///     later than that is refused `answer_expired` instead of answered again.
    ///   - interval: how often to sweep; default 10 minutes.
    public init(
        database: StageDatabase, retention: Duration = .seconds(7 * 24 * 3600),
        answerRetention: Duration = .seconds(24 * 3600), interval: Duration = .seconds(600), logger: Logger
    ) {
        self.database = database
        self.retention = retention
        self.answerRetention = answerRetention
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        await Repeating.run(every: interval, logger: logger, failure: "inbox sweep failed") {
            let removed = try await sweep()
            if removed > 0 { logger.info("inbox swept", metadata: ["removed": "\(removed)"]) }
        }
    }

    /// Deletes the expired entries and forgets the expired answers now; returns how many
    /// entries went.
    @discardableResult
    public func sweep() async throws -> Int {
        try await database.pool.execute(
            """
            UPDATE \(unescaped: database.schema).hallmark_inbox SET outputs = NULL
            WHERE processed_at < now() - \(interval: answerRetention) AND outputs IS NOT NULL
            """)
        return try await database.pool.execute(
            """
            DELETE FROM \(unescaped: database.schema).hallmark_inbox
            WHERE processed_at < now() - \(interval: retention)
            """)
    }
}
