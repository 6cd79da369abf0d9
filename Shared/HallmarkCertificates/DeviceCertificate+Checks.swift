import Crypto
import Foundation
import X509

extension DeviceCertificate {
    /// The certificate at `time` against the `trusted` manufacturer CAs (those whose trust has
    /// not ended at `time`): its validity period first (`certificate_expired`), then a chain
    /// from it to one of them under RFC 5280 (`untrusted_certificate`: another CA, self-signed,
    /// a CA itself, or a CA's constraints broken). Nil when it checks out.
    public func check(trusting trusted: [Certificate], at time: Date) async -> CertificateRefusal? {
        if let refusal = validity(at: time) { return refusal }
        return await chain(trusting: trusted, at: time)
    }

    /// `certificate_expired` when `time` is outside the validity period; nil within it.
    public func validity(at time: Date) -> CertificateRefusal? {
        certificate.notValidBefore <= time && time <= certificate.notValidAfter ? nil : .certificateExpired
    }

    /// `untrusted_certificate` unless an RFC 5280 chain leads from it to one of `trusted` at
    /// `time` (the validity period is ``validity(at:)``'s to judge).
    public func chain(trusting trusted: [Certificate], at time: Date) async -> CertificateRefusal? {
        // A CA's own certificate is no camera's, even a trusted one.
        if case .isCertificateAuthority? = try? certificate.extensions.basicConstraints { return .untrustedCertificate }
        var verifier = Verifier(rootCertificates: CertificateStore(trusted)) { RFC5280Policy(validationTime: time) }
        switch await verifier.validate(leaf: certificate, intermediates: CertificateStore()) {
        case .validCertificate(let chain) where chain.count >= 2: return nil
        default: return .untrustedCertificate
        }
    }

    /// Which of a certificate bundle's two signed forms `signature` (base64 of an ECDSA P-256
    /// SHA-256 signature, DER as DESIGN says or the raw 64 bytes the reference iOS app sends)
    /// is over, made by the certificate's key; `bad_signature` when neither.
    /// - the iOS canonical form: `lower(image_hash) \n camera_cert-as-sent \n timestamp \n
    ///   lower(gps_hash) or empty \n`;
    /// - the Raspberry Pi's: `image_hash ‖ timestamp`, as its client signs it.
    public func signedFields(
        signature: String, imageHash: String, cameraCert: String, timestamp: UInt64, gpsHash: String?
    ) throws(CertificateRefusal) -> SignedFields {
        guard signature.utf8.count <= 256, let raw = Data(base64Encoded: signature) else { throw .badSignature }
        let decoded: P256.Signing.ECDSASignature?
        if raw.count == 64 {
            decoded = try? P256.Signing.ECDSASignature(rawRepresentation: raw)
        } else {
            decoded = try? P256.Signing.ECDSASignature(derRepresentation: raw)
        }
        guard let decoded else { throw .badSignature }
        // The form its encoding suggests first (the iOS app signs raw, the Pi DER): one
        // verification for a genuine bundle.
        let forms: [SignedFields] = raw.count == 64 ? [.canonical, .imageHashTimestamp] : [.imageHashTimestamp, .canonical]
        for form in forms {
            let message = form.message(imageHash: imageHash, cameraCert: cameraCert, timestamp: timestamp, gpsHash: gpsHash)
            if signingKey.isValidSignature(decoded, for: Data(message.utf8)) { return form }
        }
        throw .badSignature
    }

    /// The bundle's signed form (the answer's record says which: `signed_fields`).
    public enum SignedFields: String, Sendable, CaseIterable {
        /// The reference iOS app's canonical form.
        case canonical
        /// The reference Raspberry Pi's `image_hash ‖ timestamp`.
        case imageHashTimestamp = "image_hash_timestamp"

        /// What the camera signed in this form.
        public func message(imageHash: String, cameraCert: String, timestamp: UInt64, gpsHash: String?) -> String {
            switch self {
            case .canonical: "\(imageHash.lowercased())\n\(cameraCert)\n\(timestamp)\n\(gpsHash?.lowercased() ?? "")\n"
            case .imageHashTimestamp: "\(imageHash)\(timestamp)"
            }
        }
    }
}
