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
package struct BundleCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "bundle", abstract: "Print the HTTP body a provisioned camera would POST to the edge.")

    @Option(help: "The camera's provisioning file (from hallmark provision).") var camera: String
    @Option(help: "flat_bundle (the Raspberry Pi's, /api/v1/submit-legacy) or camera_submission (/api/v1/submit).")
    var body = "flat_bundle"
    @Option(help: "The authority_id a camera_submission names.") var authorityID = "HALLMARK_AUTHORITY"
    @Flag(help: "Also print the processed image's bundle under the same token.") var processed = false

    package init() {}

    package func run() throws {
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
}
