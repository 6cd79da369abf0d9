import Foundation
import HallmarkPostgres

/// The replay table shared by every replica: `(partner id, mac)` pairs accepted within the
/// timestamp window.
package struct ReplayStore: Sendable {
    package let schema: String

    package init(schema: String) {
        self.schema = schema
    }

    /// Claims the key for `messageID`; false when a live entry belongs to another message (a
    /// replay). An expired entry is taken over; the message's own entry (a redelivery) is
    /// claimed again, so a redelivered message gets the same verdict. A zip upload's key has
    /// no partner and is stored with an empty partner id, which no other request can have.
    ///
    /// The stage runs it in the message's transaction, which commits before the verdict is
    /// sent; a concurrent claim of the same key waits on the primary key until that commits
    /// (or rolls back), so exactly one message wins.
    package func claim(
        _ key: ReplayKey, expires: Date, messageID: UUID, on connection: PostgresConnection
    ) async throws
        -> Bool
    {
        try await connection.execute(claimQuery(key, expires: expires, messageID: messageID)) == 1
    }

    /// The same claim, committed on its own.
    package func claim(_ key: ReplayKey, expires: Date, messageID: UUID, on pool: PostgresPool) async throws -> Bool {
        try await pool.execute(claimQuery(key, expires: expires, messageID: messageID)) == 1
    }

    private func claimQuery(_ key: ReplayKey, expires: Date, messageID: UUID) -> PostgresQuery {
        """
        INSERT INTO \(unescaped: schema).replay AS r (partner_id, mac, expires_at, message_id)
        VALUES (\(key.partner ?? ""), \(key.mac), \(expires), \(messageID))
        ON CONFLICT (partner_id, mac) DO UPDATE
            SET expires_at = EXCLUDED.expires_at, message_id = EXCLUDED.message_id
            WHERE r.expires_at <= now() OR r.message_id = EXCLUDED.message_id
        """
    }

    /// Removes up to `limit` expired entries; returns how many.
    package func sweep(pool: PostgresPool, limit: Int = 10_000) async throws -> Int {
        try await pool.execute(
            """
            DELETE FROM \(unescaped: schema).replay WHERE ctid IN (
                SELECT ctid FROM \(unescaped: schema).replay WHERE expires_at <= now() LIMIT \(limit))
            """)
    }
}
