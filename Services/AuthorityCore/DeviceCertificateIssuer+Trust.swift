import Foundation
import HallmarkCertificates
import HallmarkPostgres
import X509

extension DeviceCertificateIssuer {
    /// The issuer of `configuration`'s schema and validity.
    package init(_ configuration: AuthorityConfiguration, secrets: AuthoritySecrets) {
        self.init(schema: configuration.schema, secrets: secrets, validity: .seconds(configuration.certificateDays * 86_400))
    }

    /// The manufacturer CAs an aggregator should trust at `now` (DESIGN BM-CERT): the issuing
    /// CA, made now if there is none yet, then each older one until its `trusted_until`, as
    /// `HALLMARK_AGGREGATOR_DEVICE_CA_FILE` reads them. Certificates only: no key leaves.
    package func trust(now: Date = Date(), on connection: PostgresConnection) async throws -> ManufacturerTrust {
        _ = try await issuingCA(now: now, on: connection)
        let rows = try await connection.query(
            """
            SELECT certificate, trusted_until FROM \(unescaped: schema).certificate_authorities
            WHERE issuing OR trusted_until > \(now)
            ORDER BY issuing DESC, created_at DESC
            """)
        return ManufacturerTrust(
            anchors: try rows.decode((Data, Date?).self).map { der, until in
                ManufacturerTrust.Anchor(certificate: try Certificate(derEncoded: [UInt8](der)), trustedUntil: until)
            })
    }

    /// Rotates the manufacturer CA: a new one issues from now on, and the one that issued until
    /// now stays trusted until `until` (its cameras need new certificates by then). The CAs to
    /// trust afterwards.
    package func rotate(
        trustingOldUntil until: Date, now: Date = Date(), on connection: PostgresConnection
    ) async throws
        -> ManufacturerTrust
    {
        try await connection.execute(
            """
            UPDATE \(unescaped: schema).certificate_authorities SET issuing = false, trusted_until = \(until)
            WHERE issuing
            """)
        return try await trust(now: now, on: connection)
    }
}
