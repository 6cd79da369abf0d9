import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime

/// What the signer holds about a partner, for privacy requests (``PrivacyProcessor``): the
/// replay records of its accepted requests (MAC, message id, expiry; a MAC is not a secret)
/// and the audit trail's entries about it. Partner secrets live in files, never here, and are
/// never exported.
///
/// An erasure cannot delete replay records inside their window (they are what refuses a
/// replayed request); it answers them as retained `replay_window` until the last expires,
/// when the ``ReplaySweeper`` deletes them.
package struct SignerPrivacy: PrivacyHolder {
    package let audit: AuditTrail
    /// The signer's schema (its audit trail's).
    var schema: String { audit.schema }

    /// - Parameter audit: the signer's trail, whose schema holds the tables.
    package init(audit: AuditTrail) {
        self.audit = audit
    }

    package var subjectTypes: Set<PrivacyRequest.SubjectType> { [.partnerID] }

    package func export(
        _ type: PrivacyRequest.SubjectType, _ partner: String,
        on connection: PostgresConnection
    ) async throws -> [PrivacyResult.ExportRecord] {
        let rows = try await connection.query(
            """
            SELECT mac, message_id, expires_at FROM \(unescaped: schema).replay WHERE partner_id = \(partner)
            ORDER BY expires_at
            """)
        let replay = try rows.decode((String, UUID, Date).self).map { mac, id, expires in
            PrivacyResult.ExportRecord(
                source: "\(schema).replay",
                fields: [
                    "mac": .string(mac), "message_id": .string(id.lowercasedText),
                    "expires_at": .string(Timestamp.format(expires)),
                ])
        }
        return replay + (try await audit.entries(about: partner, type: .partnerID, on: connection))
    }

    package func erase(
        _ type: PrivacyRequest.SubjectType, _ partner: String,
        on connection: PostgresConnection
    ) async throws -> PrivacyErasure {
        // Expired records are swept now; the rest must outlive the request.
        let expired = try await connection.execute(
            """
            DELETE FROM \(unescaped: schema).replay WHERE partner_id = \(partner) AND expires_at < now()
            """)
        let live = try await connection.query(
            """
            SELECT count(*)::bigint, max(expires_at) FROM \(unescaped: schema).replay WHERE partner_id = \(partner)
            """)
        let (count, until) = try live[0].decode((Int64, Date?).self)
        return PrivacyErasure(
            erased: expired > 0 ? [.init(source: "\(schema).replay", count: Int64(expired))] : [],
            retained: count > 0
                ? [
                    .init(
                        source: "\(schema).replay", count: count, why: .replayWindow,
                        until: until.map(Timestamp.format))
                ] : [])
    }
}
