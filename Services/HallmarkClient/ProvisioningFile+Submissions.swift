import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages

extension ProvisioningFile {
    /// The bodies and token formats a camera can submit in (DESIGN §2, BM-TOKEN).
    package enum SubmissionBody: String, Sendable, CaseIterable {
        /// Hallmark's own body with a reference-format token.
        case reference
        /// Hallmark's own body with a mobile-app token.
        case mobile
        /// Hallmark's own body with a packed reference token.
        case packed
        /// The reference submission server's `CameraSubmission` (reference token).
        case cameraSubmission = "camera_submission"
        /// The Raspberry Pi client's flat bundle (one hash, packed token, device signature and
        /// ISP validation).
        case flatBundle = "flat_bundle"
    }

    /// A submission of `hashes` (one for a flat bundle) with a fresh token, as a camera sends it.
    package func submission(
        _ body: SubmissionBody, hashes: [Submission.ImageHash], id: MessageID = .random(),
        authorityID: String = "HALLMARK_AUTHORITY",
        timestamp: UInt64 = UInt64(Date().timeIntervalSince1970)
    ) throws -> Message<Submission> {
        try Message(submissionBody(body, hashes: hashes, authorityID: authorityID, timestamp: timestamp), id: id)
    }

    private func submissionBody(
        _ body: SubmissionBody, hashes: [Submission.ImageHash], authorityID: String, timestamp: UInt64
    ) throws -> Submission {
        switch body {
        case .reference:
            return Submission(
                imageHashes: hashes, token: .reference(try referenceRequest().token),
                timestamp: timestamp)
        case .mobile:
            return Submission(
                imageHashes: hashes, token: .mobile(try mobileToken()), timestamp: timestamp)
        case .packed:
            return Submission(
                imageHashes: hashes, token: .mobile(try packedToken()), timestamp: timestamp)
        case .cameraSubmission:
            return Submission(
                cameraSubmission: hashes, cameraToken: try referenceRequest().token,
                manufacturerCert: .init(
                    authorityID: authorityID,
                    validationEndpoint: "https://authority.invalid/api/v1/validate"),
                timestamp: timestamp)
        case .flatBundle:
            let isp = Submission.ISPValidation(
                varianceMetric: 0.02,
                ispParameters: .init(
                    whiteBalance: .init(redGain: 1.5, blueGain: 1.4),
                    exposureAdjustment: 0, sharpening: 0.5,
                    noiseReduction: 0.3),
                sampleCount: 5, shootingMode: "auto", metricVersion: "v1.0")
            return Submission(
                flatBundle: hashes[0], packed: try packedToken(), timestamp: timestamp,
                deviceSignature: Base64.encode(try SecureRandom.bytes(64)), ispValidation: isp)
        }
    }
}
