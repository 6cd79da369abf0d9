import HallmarkCrypto
import HallmarkPostgres
import Logging

/// A stage's PostgreSQL schema and pool. A transactional stage (``StageUnitOfWork``) records
/// every message it commits in `<schema>.hallmark_inbox` — in the same transaction as its
/// effects, with its source, a digest of its bytes and its outputs — so a redelivered
/// message's effects never happen twice, it gets its first answer again, and a message that
/// reuses a recorded id for other bytes or on another topic is told apart (`id_reused`).
public struct StageDatabase: Sendable {
    public let pool: PostgresPool
    public let schema: String
    /// When set, the inbox keeps each message's outputs (its first answer, re-sent to a
    /// redelivery) sealed under this KEK (REST), for a stage whose answers hold plaintext.
    public var outputKeyring: KeyEncryptionKeyring?

    public init(pool: PostgresPool, schema: String, outputKeyring: KeyEncryptionKeyring? = nil) {
        self.pool = pool
        self.schema = schema
        self.outputKeyring = outputKeyring
    }

    /// The runtime's own migrations use versions from here on; services number theirs from 1
    /// up to below it.
    public static let runtimeVersions = 1_000_000

    /// The runtime's migrations: the inbox (version 0, kept for the clusters that have it), its
    /// outbox column, room on each page (from when sent outputs were cleared by an update), and
    /// each message's source and digest.
    public static func runtimeMigrations(schema: String) -> [PostgresMigrations.Migration] {
        [
            .init(
                version: 0, name: "hallmark_inbox",
                sql: """
                    CREATE TABLE \(schema).hallmark_inbox (
                        message_id uuid PRIMARY KEY,
                        source_topic text NOT NULL,
                        processed_at timestamptz NOT NULL DEFAULT now()
                    );
                    CREATE INDEX hallmark_inbox_processed_at ON \(schema).hallmark_inbox (processed_at);
                    """),
            .init(
                version: runtimeVersions + 1, name: "hallmark_inbox_outputs",
                sql: """
                    ALTER TABLE \(schema).hallmark_inbox ADD COLUMN outputs bytea;
                    """),
            .init(
                version: runtimeVersions + 4, name: "hallmark_inbox_fillfactor",
                sql: """
                    ALTER TABLE \(schema).hallmark_inbox SET (fillfactor = 75);
                    """),
            // Where each message came from and a digest of its bytes: a second message with a
            // recorded id is a redelivery only if it is the same record (DESIGN §2, ids).
            .init(
                version: runtimeVersions + 8, name: "hallmark_inbox_sightings",
                sql: """
                    ALTER TABLE \(schema).hallmark_inbox ADD COLUMN digest bytea,
                        ADD COLUMN source_partition integer, ADD COLUMN source_offset bigint;
                    """),
        ]
    }

    /// Applies the runtime's migrations and the service's own, once, under an advisory lock.
    /// A service lists the runtime features it uses (``PendingRequests/migration(schema:)``,
    /// ``OrderedWriter``'s) among its own migrations.
    /// - Throws: ``PostgresError`` `invalidConfiguration` when a service's own migration uses a
    ///   version of the runtime's range (runtime features are named `hallmark_…`).
    public func migrate(_ migrations: [PostgresMigrations.Migration], logger: Logger) async throws {
        guard
            migrations.allSatisfy({ m in
                m.version >= Self.runtimeVersions ? m.name.hasPrefix("hallmark_") : m.version >= 1
            })
        else {
            throw PostgresError(
                code: .invalidConfiguration,
                message: "service migrations are numbered 1..<\(Self.runtimeVersions)")
        }
        let all = Self.runtimeMigrations(schema: schema) + migrations
        try await PostgresMigrations(schema: schema, migrations: all).apply(on: pool, logger: logger)
    }
}
