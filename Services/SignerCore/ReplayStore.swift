import Foundation
import HallmarkPostgres

/// The replay table shared by every replica: `(partner id, mac)` pairs accepted within the
/// timestamp window.
public struct ReplayStore: Sendable {
    public let schema: String

    public init(schema: String) {
        self.schema = schema
    }

    /// Claims the pair inside the message's transaction; false when a live entry exists (a
    /// replay). An expired entry is taken over. A concurrent claim of the same pair waits on
    /// the primary key until the other transaction ends, so exactly one wins; a rolled-back
    /// claim (crash before commit) leaves nothing behind, so re-processing gets the same verdict.
    public func claim(partner: String, mac: String, expires: Date, messageID: UUID,
                      on connection: PostgresConnection) async throws -> Bool {
        try await connection.execute("""
            INSERT INTO \(unescaped: schema).replay AS r (partner_id, mac, expires_at, message_id)
            VALUES (\(partner), \(mac), \(expires), \(messageID))
            ON CONFLICT (partner_id, mac) DO UPDATE
                SET expires_at = EXCLUDED.expires_at, message_id = EXCLUDED.message_id
                WHERE r.expires_at <= now()
            """) == 1
    }

    /// Removes up to `limit` expired entries; returns how many.
    public func sweep(pool: PostgresPool, limit: Int = 10_000) async throws -> Int {
        try await pool.execute("""
            DELETE FROM \(unescaped: schema).replay WHERE ctid IN (
                SELECT ctid FROM \(unescaped: schema).replay WHERE expires_at <= now() LIMIT \(limit))
            """)
    }
}
