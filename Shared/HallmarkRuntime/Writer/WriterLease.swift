import Foundation
import HallmarkPostgres
import Logging

/// The lead of an ``OrderedWriter``: a session advisory lock on a connection of its own, and the
/// epoch taken with it. The lock is keyed by (schema, log name) in PostgreSQL's two-key space,
/// apart from the migrations' one-key locks.
final class WriterLease: Sendable {
    let connection: PostgresConnection
    let epoch: Int64
    let name: String
    let schema: String

    private init(connection: PostgresConnection, epoch: Int64, name: String, schema: String) {
        self.connection = connection
        self.epoch = epoch
        self.name = name
        self.schema = schema
    }

    /// The lead, or nil when another replica holds it.
    static func acquire<C>(_ configuration: C, pool: PostgresPool, logger: Logger) async throws -> WriterLease?
    where C: WriterLeaseConfiguration {
        let connection = try await PostgresConnection.connect(configuration: pool.configuration, logger: logger)
        let got = try await connection.query(
            """
            SELECT pg_try_advisory_lock(hashtext(\(configuration.schema)), hashtext(\(configuration.name)))
            """)
        guard try got[0].column(0, as: Bool.self) else { return nil }
        // Fencing: every batch must carry this epoch; a stale leader's carry an older one.
        let rows = try await pool.query(
            """
            INSERT INTO \(unescaped: configuration.schema).hallmark_writer AS w (name, epoch, position)
            VALUES (\(configuration.name), 1, 0)
            ON CONFLICT (name) DO UPDATE SET epoch = w.epoch + 1
            RETURNING epoch
            """)
        return WriterLease(
            connection: connection, epoch: try rows[0].column(0, as: Int64.self), name: configuration.name,
            schema: configuration.schema)
    }

    /// The head, locked for the caller's transaction, if this lease is still the current one.
    /// Throws ``WriterFenced`` when a newer leader took over.
    func head(on connection: PostgresConnection) async throws -> Int64 {
        let rows = try await connection.query(
            """
            SELECT position FROM \(unescaped: schema).hallmark_writer
            WHERE name = \(name) AND epoch = \(epoch) FOR UPDATE
            """)
        guard let row = rows.first else { throw WriterFenced(epoch: epoch) }
        return try row.column(0, as: Int64.self)
    }

    /// Moves the locked head to `position` (after ``head(on:)`` in the same transaction).
    func advance(to position: Int64, on connection: PostgresConnection) async throws {
        let rows = try await connection.query(
            """
            UPDATE \(unescaped: schema).hallmark_writer SET position = \(position)
            WHERE name = \(name) AND epoch = \(epoch) RETURNING position
            """)
        guard !rows.isEmpty else { throw WriterFenced(epoch: epoch) }
    }

    /// Throws when the lock's session is gone (the lock with it).
    func check() async throws {
        _ = try await connection.query("SELECT 1")
    }
}

/// A newer leader has taken over: this one must write nothing more.
struct WriterFenced: Error, CustomStringConvertible {
    let epoch: Int64
    var description: String { "fenced: epoch \(epoch) is no longer the log's" }
}

/// What a lease needs of the writer's configuration.
protocol WriterLeaseConfiguration: Sendable {
    var name: String { get }
    var schema: String { get }
}
