import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkPostgres

extension AuditTrail {
    /// The trail's entries about a subject, as export rows (what, when, by whom, how it
    /// ended); found by the subject's blind index, so none without an index key.
    public func entries(
        about subject: String, type: AuditRecord.SubjectType,
        on connection: PostgresConnection
    ) async throws -> [PrivacyResult.ExportRecord] {
        guard let index = subjectIndex(subject, type: type) else { return [] }
        let rows = try await connection.query(
            """
            SELECT record FROM \(unescaped: schema).hallmark_audit WHERE subject_index = \(index) ORDER BY sequence
            """)
        return try rows.decode(Data.self).compactMap { bytes in
            guard let r = try? JSONCoding.decode(AuditRecord.self, from: [UInt8](bytes)) else { return nil }
            return PrivacyResult.ExportRecord(
                source: "\(schema).hallmark_audit",
                fields: [
                    "sequence": .integer(Int64(r.sequence)), "occurred_at": .string(r.occurredAt),
                    "action": .string(r.action.rawValue), "outcome": .string(r.outcome.rawValue),
                    "actor": .string(r.actor.rawValue),
                    "actor_key_id": r.actorKeyID.map(PrivacyResult.Value.string) ?? .null,
                    "reason": r.reason.map(PrivacyResult.Value.string) ?? .null,
                ])
        }
    }

    /// A service's index key for audit subjects: `<prefix>_INDEX_KEY_FILE` (a file holding b64
    /// of at least 32 bytes), else `<prefix>_INDEX_KEY`; nil when neither is set.
    public static func indexKey(_ env: [String: String], prefix: String) throws(ConfigurationError) -> Data? {
        try KeySetting.read(env, indexKeyVariable(prefix: prefix))
    }

    /// `<prefix>_INDEX_KEY_FILE`, else `<prefix>_INDEX_KEY`: declared once.
    public static func indexKeyVariable(prefix: String) -> FileSetting {
        FileSetting("\(prefix)_INDEX_KEY", doc: "the blind-index key of audit subjects (b64 of at least 32 bytes)")
    }
}
