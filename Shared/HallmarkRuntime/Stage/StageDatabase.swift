import HallmarkPostgres
import Logging

/// A stage's PostgreSQL schema and pool. With one, every message runs in a transaction that
/// first records its id in `<schema>.hallmark_inbox`, so a redelivered message that was
/// already processed (and committed) is recognised and skipped: effects happen once.
public struct StageDatabase: Sendable {
    public let pool: PostgresPool
    public let schema: String

    public init(pool: PostgresPool, schema: String) {
        self.pool = pool
        self.schema = schema
    }

    /// The runtime's own migration (version 0); services number theirs from 1.
    public static func inboxMigration(schema: String) -> PostgresMigrations.Migration {
        .init(version: 0, name: "hallmark_inbox", sql: """
            CREATE TABLE \(schema).hallmark_inbox (
                message_id uuid PRIMARY KEY,
                source_topic text NOT NULL,
                processed_at timestamptz NOT NULL DEFAULT now()
            );
            CREATE INDEX hallmark_inbox_processed_at ON \(schema).hallmark_inbox (processed_at);
            """)
    }

    /// Applies the inbox migration and the service's own, once, under an advisory lock.
    public func migrate(_ migrations: [PostgresMigrations.Migration], logger: Logger) async throws {
        let all = [Self.inboxMigration(schema: schema)] + migrations
        try await PostgresMigrations(schema: schema, migrations: all).apply(on: pool, logger: logger)
    }
}
