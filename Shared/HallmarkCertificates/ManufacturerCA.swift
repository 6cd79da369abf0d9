import Crypto
import Foundation
import SwiftASN1
import X509

/// A manufacturer CA (DESIGN BM-CERT): a self-signed P-256 certificate that may sign device
/// certificates only (a path of one), and its key, which its owner (the authority) keeps sealed.
public struct ManufacturerCA: Sendable {
    public let certificate: Certificate
    private let key: P256.Signing.PrivateKey

    /// A new CA named `name`, valid over `validity`.
    public static func generate(name: String, validity: Range<Date>) throws -> ManufacturerCA {
        let key = P256.Signing.PrivateKey()
        let subject = try DistinguishedName {
            CommonName(name)
            OrganizationName(DeviceCertificates.organization)
        }
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            SubjectKeyIdentifier(hash: Certificate.PublicKey(key.publicKey))
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: validity.lowerBound, notValidAfter: validity.upperBound, issuer: subject, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions, issuerPrivateKey: Certificate.PrivateKey(key))
        return ManufacturerCA(certificate: certificate, key: key)
    }

    /// The CA of `certificate` (DER) and its raw 32-byte private key; `nil` when they do not
    /// belong together.
    public init?(certificateDER: [UInt8], privateKey: Data) {
        guard let certificate = try? Certificate(derEncoded: certificateDER),
            let key = try? P256.Signing.PrivateKey(rawRepresentation: privateKey),
            P256.Signing.PublicKey(certificate.publicKey)?.rawRepresentation == key.publicKey.rawRepresentation
        else { return nil }
        self.init(certificate: certificate, key: key)
    }

    private init(certificate: Certificate, key: P256.Signing.PrivateKey) {
        self.certificate = certificate
        self.key = key
    }

    /// How long before its issuance a certificate is valid from.
    static let backdating: TimeInterval = 300

    /// The private key's raw 32 bytes, for its owner to seal. Never log or send them.
    public var privateKeyRaw: Data { key.rawRepresentation }

    /// The certificate, DER.
    public var certificateDER: [UInt8] {
        get throws {
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            return serializer.serializedBytes
        }
    }

    /// A device certificate for `deviceKey`: subject CN = `serial`, valid from five minutes
    /// before `now` (whole seconds: a certificate's times have no fraction, and a camera's clock
    /// may lag) for `validity` (no later than the CA itself), a random serial, key usage digital signature
    /// only, not a CA, and the handle `handle(serial)` returns (sealed by the caller, bound to
    /// the certificate's serial) in ``DeviceCertificates/handleOID``.
    public func issue(
        deviceKey: P256.Signing.PublicKey, serial: String, now: Date, validity: TimeInterval,
        handle: (Certificate.SerialNumber) throws -> [UInt8]
    ) throws -> Certificate {
        let number = Certificate.SerialNumber()
        let subject = try DistinguishedName {
            CommonName(serial)
            OrganizationName(DeviceCertificates.organization)
        }
        let sealed = try handle(number)
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            AuthorityKeyIdentifier(keyIdentifier: try certificate.extensions.subjectKeyIdentifier?.keyIdentifier)
            Certificate.Extension(oid: DeviceCertificates.handleOID, critical: false, value: sealed[...])
        }
        let from = Date(timeIntervalSince1970: (now.timeIntervalSince1970 - Self.backdating).rounded(.down))
        return try Certificate(
            version: .v3, serialNumber: number, publicKey: Certificate.PublicKey(deviceKey), notValidBefore: from,
            notValidAfter: min(now.addingTimeInterval(validity), certificate.notValidAfter), issuer: certificate.subject,
            subject: subject, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
            issuerPrivateKey: Certificate.PrivateKey(key))
    }
}
