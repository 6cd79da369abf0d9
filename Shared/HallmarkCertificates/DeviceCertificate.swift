import Crypto
import Foundation
import SwiftASN1
import X509

/// A camera's certificate as a certificate bundle carries it (DESIGN BM-CERT): `camera_cert` is
/// base64 of DER (what the reference Raspberry Pi sends) or of PEM (what the reference
/// validator reads). Read strictly: one certificate, a P-256 key, nothing before or after it.
public struct DeviceCertificate: Sendable {
    /// How the camera sent it.
    public enum Encoding: String, Sendable { case der, pem }

    public let certificate: Certificate
    public let encoding: Encoding
    /// The certificate's DER, whichever way it was sent.
    public let der: [UInt8]
    /// Its key, which signs the camera's bundles.
    public let signingKey: P256.Signing.PublicKey

    /// The most a certificate's transport may be: a device certificate is under 1 KiB.
    public static let maxTransportBytes = 8192

    /// Reads `camera_cert` as sent; `invalid_certificate` for anything else.
    public init(transported text: String) throws(CertificateRefusal) {
        guard text.utf8.count <= Self.maxTransportBytes,
            let raw = Data(base64Encoded: text), !raw.isEmpty
        else { throw .invalidCertificate }
        let bytes = [UInt8](raw)
        let certificate: Certificate
        let encoding: Encoding
        let der: [UInt8]
        if bytes.first == 0x30 {
            guard let read = try? Certificate(derEncoded: bytes), Self.isWhole(bytes) else { throw .invalidCertificate }
            (certificate, encoding, der) = (read, .der, bytes)
        } else {
            guard let pem = String(bytes: bytes, encoding: .utf8), let read = Self.onlyCertificate(pem) else {
                throw .invalidCertificate
            }
            (certificate, encoding, der) = (read.certificate, .pem, read.der)
        }
        guard let key = P256.Signing.PublicKey(certificate.publicKey) else { throw .invalidCertificate }
        self.certificate = certificate
        self.encoding = encoding
        self.der = der
        signingKey = key
    }

    /// The sealed handle Hallmark's authority put in it (``DeviceCertificates/handleOID``), if any.
    public var handle: [UInt8]? {
        certificate.extensions[oid: DeviceCertificates.handleOID].map { Array($0.value) }
    }

    /// The certificate's serial, hex (what its handle is bound to).
    public var serialHex: String { DeviceCertificates.hex(certificate.serialNumber) }

    /// Whether one DER element spans all of `bytes` (nothing after the certificate).
    private static func isWhole(_ bytes: [UInt8]) -> Bool {
        guard let node = try? DER.parse(bytes) else { return false }
        return node.encodedBytes.count == bytes.count
    }

    /// The certificate of a PEM text holding exactly one `CERTIFICATE` block and nothing around
    /// it but line breaks.
    private static func onlyCertificate(_ text: String) -> (certificate: Certificate, der: [UInt8])? {
        let trimmed = text.trimmingCharacters(in: .newlines)
        guard trimmed.hasPrefix("-----BEGIN CERTIFICATE-----"), trimmed.hasSuffix("-----END CERTIFICATE-----"),
            trimmed.components(separatedBy: "-----BEGIN").count == 2,
            let document = try? PEMDocument(pemString: trimmed), document.discriminator == "CERTIFICATE"
        else { return nil }
        guard let certificate = try? Certificate(derEncoded: document.derBytes) else { return nil }
        return (certificate, document.derBytes)
    }
}
