import Foundation
import HallmarkPostgres

/// The replay table shared by every replica: `(partner id, mac)` pairs accepted within the
/// timestamp window.
public struct ReplayStore: Sendable {
    public let schema: String

    public init(schema: String) {
        self.schema = schema
    }

    /// Claims the pair for `messageID`; false when a live entry belongs to another message
    /// (a replay). An expired entry is taken over; the message's own entry (a redelivery)
    /// is claimed again, so a redelivered message gets the same verdict.
    ///
    /// Runs in its own short transaction, committed before the verdict is produced: a replica
    /// that crashes after producing "accepted" leaves its claim behind, so a copy of the
    /// request on another replica is a replay, never a second acceptance. A concurrent claim
    /// of the same pair waits on the primary key until the other commits; exactly one wins.
    public func claim(partner: String, mac: String, expires: Date, messageID: UUID,
                      pool: PostgresPool) async throws -> Bool {
        try await pool.execute("""
            INSERT INTO \(unescaped: schema).replay AS r (partner_id, mac, expires_at, message_id)
            VALUES (\(partner), \(mac), \(expires), \(messageID))
            ON CONFLICT (partner_id, mac) DO UPDATE
                SET expires_at = EXCLUDED.expires_at, message_id = EXCLUDED.message_id
                WHERE r.expires_at <= now() OR r.message_id = EXCLUDED.message_id
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
