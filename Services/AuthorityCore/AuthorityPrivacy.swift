import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime

/// What the authority holds about a camera, for privacy requests (``PrivacyProcessor``):
/// its `devices` row (serial, family, tables, blacklisting; the sealed NUC hash is never
/// exported), its hourly validation counts, an erased camera's tombstone, and the audit
/// trail's entries about it (by blind index).
///
/// Erasure deletes the counts and the device row, sealed NUC hash included, and leaves a
/// tombstone (`erased_devices`: the serial's keyed blind index and when), so the camera's
/// tokens get `unknown_device` and its serial is refused `erased_device` if provisioned
/// again. Replay records (`seen_tokens`) name no device, so none are retained for it.
package struct AuthorityPrivacy: PrivacyHolder {
    let secrets: AuthoritySecrets
    package let audit: AuditTrail
    let devices: DeviceDirectory?
    /// The authority's schema (its audit trail's).
    var schema: String { audit.schema }

    /// - Parameter audit: the authority's trail, whose schema holds the tables.
    package init(secrets: AuthoritySecrets, audit: AuditTrail, devices: DeviceDirectory?) {
        self.secrets = secrets
        self.audit = audit
        self.devices = devices
    }

    package var subjectTypes: Set<PrivacyRequest.SubjectType> { [.deviceSerial] }

    package func export(
        _ type: PrivacyRequest.SubjectType, _ serial: String,
        on connection: PostgresConnection
    ) async throws -> [PrivacyResult.ExportRecord] {
        var records: [PrivacyResult.ExportRecord] = []
        let device = try await connection.query(
            """
            SELECT device_id, serial, device_family, table_a, table_b, table_c, blacklisted, blacklist_reason,
                   warned_at, provisioned_at, changed_at
            FROM \(unescaped: schema).devices WHERE serial = \(serial)
            """)
        typealias Row = (Int64, String, String?, Int64, Int64, Int64, Bool, String?, Date?, Date, Date)
        if let (id, serial, family, a, b, c, blacklisted, why, warned, provisioned, changed) = try device.decode(Row.self).first {
            records.append(
                .init(
                    source: "\(schema).devices",
                    fields: [
                        "device_serial": .string(serial), "device_family": family.map(PrivacyResult.Value.string) ?? .null,
                        "table_a": .integer(a), "table_b": .integer(b), "table_c": .integer(c), "blacklisted": .bool(blacklisted),
                        "blacklist_reason": why.map(PrivacyResult.Value.string) ?? .null,
                        "warned_at": warned.map { .string(Timestamp.format($0)) } ?? .null,
                        "provisioned_at": .string(Timestamp.format(provisioned)),
                        "changed_at": .string(Timestamp.format(changed)),
                    ]))
            let counts = try await connection.query(
                """
                SELECT hour, count::bigint FROM \(unescaped: schema).validation_counts WHERE device_id = \(id) ORDER BY hour
                """)
            for (hour, count) in try counts.decode((Date, Int64).self) {
                records.append(
                    .init(
                        source: "\(schema).validation_counts",
                        fields: ["hour": .string(Timestamp.format(hour)), "validations": .integer(count)]))
            }
        }
        let tombstone = try await connection.query(
            """
            SELECT erased_at FROM \(unescaped: schema).erased_devices WHERE serial_index = \(secrets.tombstoneIndex(serial))
            """)
        for erased in try tombstone.decode(Date.self) {
            records.append(.init(source: "\(schema).erased_devices", fields: ["erased_at": .string(Timestamp.format(erased))]))
        }
        records += try await audit.entries(about: serial, type: .deviceSerial, on: connection)
        return records
    }

    package func erase(
        _ type: PrivacyRequest.SubjectType, _ serial: String,
        on connection: PostgresConnection
    ) async throws -> PrivacyErasure {
        let tombstone = secrets.tombstoneIndex(serial)
        let ids = try await connection.query(
            """
            SELECT device_id FROM \(unescaped: schema).devices WHERE serial = \(serial) FOR UPDATE
            """
        ).decode(Int64.self)
        var erased: [PrivacyResult.SourceCount] = []
        if let id = ids.first {
            let counts = try await connection.execute(
                """
                DELETE FROM \(unescaped: schema).validation_counts WHERE device_id = \(id)
                """)
            if counts > 0 { erased.append(.init(source: "\(schema).validation_counts", count: Int64(counts))) }
            let rows = try await connection.execute("DELETE FROM \(unescaped: schema).devices WHERE device_id = \(id)")
            erased.append(.init(source: "\(schema).devices", count: Int64(rows)))
            try await connection.execute(
                """
                INSERT INTO \(unescaped: schema).erased_devices (serial_index) VALUES (\(tombstone))
                ON CONFLICT DO NOTHING
                """)
            devices?.invalidate(serial: serial)
        }
        let tombstones = try await connection.query(
            """
            SELECT count(*)::bigint FROM \(unescaped: schema).erased_devices WHERE serial_index = \(tombstone)
            """)[0].column(0, as: Int64.self)
        return PrivacyErasure(
            erased: erased,
            retained: tombstones > 0
                ? [.init(source: "\(schema).erased_devices", count: tombstones, why: .tombstone)] : [])
    }
}
