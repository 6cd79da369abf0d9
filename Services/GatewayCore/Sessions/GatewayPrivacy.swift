import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime

/// What the gateway holds about an E2EE session, for privacy requests (``PrivacyProcessor``):
/// its row in `e2ee_sessions` (when it was made and expires, its counters; the sealed session
/// key and the gateway's public key are key material and never exported) and the audit
/// trail's entries about it. Erasure deletes the row, and the sealed key with it: the session
/// can no longer be used. ENC-1 keeps nothing per partner in the database.
package struct GatewayPrivacy: PrivacyHolder {
    package let audit: AuditTrail
    /// The gateway's schema (its audit trail's).
    var schema: String { audit.schema }

    /// - Parameter audit: the gateway's trail, whose schema holds the tables.
    package init(audit: AuditTrail) {
        self.audit = audit
    }

    package var subjectTypes: Set<PrivacyRequest.SubjectType> { [.sessionID] }

    package func export(
        _ type: PrivacyRequest.SubjectType, _ session: String,
        on connection: PostgresConnection
    ) async throws -> [PrivacyResult.ExportRecord] {
        let rows = try await connection.query(
            """
            SELECT session_id, recv_counter, send_counter, created_at, expires_at
            FROM \(unescaped: schema).e2ee_sessions WHERE session_id = \(session)
            """)
        let sessions = try rows.decode((String, Int64, Int64, Date, Date).self).map { id, recv, send, created, expires in
            PrivacyResult.ExportRecord(
                source: "\(schema).e2ee_sessions",
                fields: [
                    "session_id": .string(id), "last_inbound_counter": .integer(recv), "last_outbound_counter": .integer(send),
                    "created_at": .string(Timestamp.format(created)), "expires_at": .string(Timestamp.format(expires)),
                ])
        }
        return sessions + (try await audit.entries(about: session, type: .sessionID, on: connection))
    }

    package func erase(
        _ type: PrivacyRequest.SubjectType, _ session: String,
        on connection: PostgresConnection
    ) async throws -> PrivacyErasure {
        let deleted = try await connection.execute(
            """
            DELETE FROM \(unescaped: schema).e2ee_sessions WHERE session_id = \(session)
            """)
        return PrivacyErasure(erased: deleted > 0 ? [.init(source: "\(schema).e2ee_sessions", count: Int64(deleted))] : [])
    }
}
