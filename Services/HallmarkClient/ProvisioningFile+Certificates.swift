import Crypto
import Foundation
import HallmarkCore
import HallmarkMessages

extension ProvisioningFile {
    /// How a certificate-mode camera sends and signs its bundle (DESIGN BM-CERT).
    package enum CertificateForm: String, Sendable, CaseIterable {
        /// The reference Raspberry Pi's: `camera_cert` base64 of DER, a DER signature over
        /// `image_hash ‖ timestamp`.
        case pi
        /// The reference iOS app's canonical form, with a raw r‖s signature; `camera_cert` here
        /// base64 of the PEM, the other encoding DESIGN accepts.
        case ios
    }

    /// A certificate bundle of `imageHash` signed by this camera's key, as `form`'s camera
    /// sends it; the camera must have been provisioned with `--certificate`.
    package func certificateBundle(
        imageHash: String, form: CertificateForm, timestamp: UInt64 = UInt64(Date().timeIntervalSince1970),
        gpsHash: String? = nil, ownerHash: String? = nil
    ) throws -> Submission {
        guard let pem = deviceCertificate, let keyPEM = devicePrivateKey else {
            throw AuthorityClientError(.mismatch, "the camera was not provisioned with a certificate (--certificate)")
        }
        let key = try P256.Signing.PrivateKey(pemRepresentation: keyPEM)
        let cert: String
        switch form {
        case .pi:
            let body = pem.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("-----") }.joined()
            guard let der = Data(base64Encoded: body) else {
                throw AuthorityClientError(.mismatch, "the device certificate is not PEM")
            }
            cert = der.base64EncodedString()
        case .ios:
            cert = Data(pem.utf8).base64EncodedString()
        }
        let signed: String
        let signature: Data
        switch form {
        case .pi:
            signed = "\(imageHash)\(timestamp)"
            signature = try key.signature(for: Data(signed.utf8)).derRepresentation
        case .ios:
            signed = "\(imageHash.lowercased())\n\(cert)\n\(timestamp)\n\(gpsHash?.lowercased() ?? "")\n"
            signature = try key.signature(for: Data(signed.utf8)).rawRepresentation
        }
        return Submission(
            certificateBundle: imageHash, cameraCert: cert, bundleSignature: signature.base64EncodedString(),
            timestamp: timestamp, gpsHash: gpsHash, ownerHash: ownerHash)
    }
}
