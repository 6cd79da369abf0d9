import ArgumentParser
import Foundation
import HallmarkClient
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages

/// `hallmark aggregator bundle --camera F`: plays a provisioned camera and prints the HTTP body
/// it would POST to the edge, one per line: what `deploy/local/run` sends with curl. With
/// `--processed`, a second line: the processed image's bundle under the same token (level 1,
/// parent = the raw hash), as the reference Raspberry Pi sends it after the raw one.
///
/// `--body certificate_pi` or `certificate_ios` plays a certificate-mode camera (provisioned with
/// `--certificate`; DESIGN BM-CERT): the bodies `/api/v1/submit-cert` takes, signed with its key
/// in the Raspberry Pi's form or the iOS app's. A processed image is a bundle of its own.
package struct BundleCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "bundle", abstract: "Print the HTTP body a provisioned camera would POST to the edge.")

    @Option(help: "The camera's provisioning file (from hallmark provision).") var camera: String
    @Option(
        help:
            "flat_bundle (the Raspberry Pi's, /api/v1/submit-legacy), camera_submission (/api/v1/submit), or certificate_pi or certificate_ios (/api/v1/submit-cert)."
    )
    var body = "flat_bundle"
    @Option(help: "The authority_id a camera_submission names.") var authorityID = "HALLMARK_AUTHORITY"
    @Flag(help: "Also print the processed image's bundle under the same token.") var processed = false

    package init() {}

    package func run() throws {
        if body.hasPrefix("certificate_") { return try certificates() }
        guard let format = ProvisioningFile.SubmissionBody(rawValue: body), [.flatBundle, .cameraSubmission].contains(format)
        else { throw ValidationError("--body must be flat_bundle or camera_submission") }
        guard let contents = FileManager.default.contents(atPath: camera) else { throw ValidationError("cannot read \(camera)") }
        let file = try JSONCoding.decode(ProvisioningFile.self, from: Array(contents))
        let raw = try Hex.encode(SecureRandom.bytes(32))
        var bundle = try file.submission(
            format, hashes: [.init(imageHash: raw, modificationLevel: 0)], authorityID: authorityID
        ).body
        print(String(decoding: try JSONCoding.encode(bundle), as: UTF8.self))
        guard processed else { return }
        let derived = Submission.ImageHash(
            imageHash: try Hex.encode(SecureRandom.bytes(32)), modificationLevel: 1, parentImageHash: raw)
        if format == .flatBundle {
            (bundle.imageHash, bundle.modificationLevel, bundle.parentImageHash) = (
                derived.imageHash, 1, derived.parentImageHash
            )
        } else {
            bundle.imageHashes = [derived]
        }
        print(String(decoding: try JSONCoding.encode(bundle), as: UTF8.self))
    }

    /// A certificate-mode camera's bundles: the raw image's, then with `--processed` the
    /// processed image's, each signed on its own.
    private func certificates() throws {
        guard let form = ProvisioningFile.CertificateForm(rawValue: String(body.dropFirst("certificate_".count))) else {
            throw ValidationError("--body must be flat_bundle, camera_submission, certificate_pi or certificate_ios")
        }
        guard let contents = FileManager.default.contents(atPath: camera) else { throw ValidationError("cannot read \(camera)") }
        let file = try JSONCoding.decode(ProvisioningFile.self, from: Array(contents))
        for _ in 0..<(processed ? 2 : 1) {
            let bundle = try file.certificateBundle(imageHash: try Hex.encode(SecureRandom.bytes(32)), form: form)
            var text = String(decoding: try JSONCoding.encode(bundle), as: UTF8.self)
            // The Raspberry Pi sends its software certificate as null (the reference's phase 2).
            if form == .pi { text = #"{"software_cert":null,"# + text.dropFirst() }
            print(text)
        }
    }
}
