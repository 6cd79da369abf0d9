import Crypto
import Foundation
import HallmarkCertificates
import HallmarkCrypto
import HallmarkPostgres
import X509

/// The authority's manufacturer CA (DESIGN BM-CERT) and the device certificates it issues at
/// provisioning. The CA's certificate and its P-256 key, sealed under the KEK (REST), live in
/// `certificate_authorities`; the first certificate request makes the CA. A device certificate
/// names the camera's serial as its subject CN and carries, in 1.3.6.1.4.1.99999.1, a handle:
/// the serial sealed under the KEK and bound to the certificate's serial, which only the
/// authority can open. The device's private key never reaches it.
package struct DeviceCertificateIssuer: Sendable {
    let schema: String
    let secrets: AuthoritySecrets
    /// How long a device certificate is valid.
    let validity: Duration

    /// The CA's common name.
    static let caName = "Hallmark manufacturer CA"
    /// How long a CA is valid: longer than any certificate it issues.
    static let caValidity: TimeInterval = 20 * 365 * 86_400

    package init(schema: String, secrets: AuthoritySecrets, validity: Duration) {
        self.schema = schema
        self.secrets = secrets
        self.validity = validity
    }

    /// Where a CA's key is sealed, bound to the CA certificate's fingerprint.
    static func keyContext(fingerprint: Data) -> AtRestContext {
        AtRestContext(table: "certificate_authorities", column: "key_sealed", rowId: Hex.encode(fingerprint))
    }

    /// Where a device certificate's handle is sealed, bound to that certificate's serial.
    package static func handleContext(certificateSerial hex: String) -> AtRestContext {
        AtRestContext(table: "device_certificates", column: "handle", rowId: hex)
    }

    /// A device certificate for `deviceKey` and `serial`, and the issuing CA's certificate, PEM.
    func issue(
        _ deviceKey: P256.Signing.PublicKey, serial: String, now: Date = Date(), on connection: PostgresConnection
    ) async throws -> (certificate: String, chain: String) {
        let ca = try await issuingCA(now: now, on: connection)
        let keyring = secrets.keyring
        let certificate = try ca.issue(
            deviceKey: deviceKey, serial: serial, now: now, validity: TimeInterval(validity.components.seconds)
        ) { number in
            [UInt8](
                try AtRestSeal.seal(
                    Data(serial.utf8), context: Self.handleContext(certificateSerial: DeviceCertificates.hex(number)),
                    keyring: keyring))
        }
        return (try certificate.serializeAsPEM().pemString, try ca.certificate.serializeAsPEM().pemString)
    }

    /// The serial a device certificate's handle names; nil when the handle was not sealed by
    /// this authority for that certificate.
    package func device(of certificate: DeviceCertificate) -> String? {
        certificate.handle.flatMap { Self.device(handle: Data($0), certificateSerial: certificate.serialHex, secrets: secrets) }
    }

    /// The serial `handle` names, when this authority sealed it into the certificate with
    /// serial `hex` (what a `hallmark.device.request.v1` carries); nil otherwise.
    package static func device(handle: Data, certificateSerial hex: String, secrets: AuthoritySecrets) -> String? {
        guard
            let opened = try? AtRestSeal.open(
                handle, context: handleContext(certificateSerial: hex), keyring: secrets.keyring)
        else { return nil }
        return String(data: opened, encoding: .utf8)
    }

    /// The CA that issues now, made and sealed on first use. Two replicas that make one at once
    /// keep one: the unique index on the issuing row lets one insert win, and both read it back.
    func issuingCA(now: Date, on connection: PostgresConnection) async throws -> ManufacturerCA {
        if let ca = try await loadIssuing(on: connection) { return ca }
        let made = try ManufacturerCA.generate(
            name: Self.caName, validity: now.addingTimeInterval(-3600)..<now.addingTimeInterval(Self.caValidity))
        let der = try made.certificateDER
        let fingerprint = Data(SHA256.hash(data: der))
        let sealed = try AtRestSeal.seal(
            made.privateKeyRaw, context: Self.keyContext(fingerprint: fingerprint), keyring: secrets.keyring)
        try await connection.execute(
            """
            INSERT INTO \(unescaped: schema).certificate_authorities (fingerprint, certificate, key_sealed, kek_version, issuing)
            VALUES (\(fingerprint), \(Data(der)), \(sealed), \(Int64(secrets.keyring.currentVersion)), true)
            ON CONFLICT DO NOTHING
            """)
        guard let ca = try await loadIssuing(on: connection) else {
            throw AuthorityError(.corruptRow, "the manufacturer CA could not be stored")
        }
        return ca
    }

    private func loadIssuing(on connection: PostgresConnection) async throws -> ManufacturerCA? {
        let rows = try await connection.query(
            """
            SELECT fingerprint, certificate, key_sealed FROM \(unescaped: schema).certificate_authorities WHERE issuing
            """)
        guard let (fingerprint, der, sealed) = try rows.decode((Data, Data, Data).self).first else { return nil }
        let key = try AtRestSeal.open(sealed, context: Self.keyContext(fingerprint: fingerprint), keyring: secrets.keyring)
        guard let ca = ManufacturerCA(certificateDER: [UInt8](der), privateKey: key) else {
            throw AuthorityError(.corruptRow, "the stored manufacturer CA does not match its key")
        }
        return ca
    }
}
