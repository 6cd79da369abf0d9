import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import Testing

/// ``CameraBundle``: lenient in (as the Birthmark reference server reads), strict out.
@Suite("Camera bundles at the edge", .timeLimit(.minutes(1)))
struct CameraBundleTests {
    static let hash = String(repeating: "ab", count: 32)
    static let token = String(repeating: "A", count: 80)

    static func read(_ json: String) throws -> Submission { try CameraBundle.message(Array(json.utf8)).body }

    static func error(_ json: String) -> CameraBundle.Refusal? {
        do {
            _ = try read(json)
            return nil
        } catch { return error as? CameraBundle.Refusal }
    }

    @Test func theFlatBundleBecomesHallmarksOwnBodyWithoutTheDeviceFields() throws {
        let s = try Self.read(
            """
            {"image_hash": "\(Self.hash.uppercased())", "encrypted_nuc_token": "\(Self.token)", "table_references": [1, "2", 3.0],
             "key_indices": [0, 999, 5], "timestamp": "1732000000", "modification_level": 1,
             "parent_image_hash": "\(String(repeating: "CD", count: 32))", "device_signature": "c2ln", "isp_validation": {"x": 1},
             "firmware": "unknown members are ignored"}
            """)
        #expect(s.imageHashes?.first?.imageHash == Self.hash)
        #expect(s.imageHashes?.first?.parentImageHash == String(repeating: "cd", count: 32))
        #expect(s.tableReferences == [1, 2, 3] && s.timestamp == 1_732_000_000)
        #expect(s.imageHash == nil && s.deviceSignature == nil && s.ispValidation == nil)
    }

    @Test func theMobileAppsBundleHasLevelZero() throws {
        let s = try Self.read(
            """
            {"image_hash": "\(Self.hash)", "encrypted_nuc_token": "\(Self.token)", "table_references": [1, 2, 3],
             "key_indices": [4, 5, 6], "timestamp": 1732000000, "device_signature": "c2ln"}
            """)
        #expect(s.entries.first?.modificationLevel == 0 && s.entries.first?.parentImageHash == nil)
    }

    @Test func aCameraSubmissionStaysOne() throws {
        let s = try Self.read(
            """
            {"submission_type": "camera", "image_hashes": [{"image_hash": "\(Self.hash)", "modification_level": 0, "parent_image_hash": null}],
             "camera_token": {"ciphertext": "\(String(repeating: "EF", count: 32))", "auth_tag": "\(String(repeating: "01", count: 16))",
             "nonce": "\(String(repeating: "02", count: 12))", "table_id": 7, "key_index": 42},
             "manufacturer_cert": {"authority_id": "SIMULATED_CAMERA_001", "validation_endpoint": "http://localhost:8001/validate"},
             "timestamp": 1732000000}
            """)
        #expect(s.shape == .cameraSubmission && s.manufacturerCert?.authorityID == "SIMULATED_CAMERA_001")
        #expect(s.cameraToken?.ciphertext == String(repeating: "ef", count: 32))
    }

    @Test func hallmarksOwnBodyTakesEitherTokenLayout() throws {
        let reference = try Self.read(
            """
            {"image_hashes": [{"image_hash": "\(Self.hash)", "modification_level": 0}],
             "camera_token": {"ciphertext": "\(String(repeating: "ef", count: 32))", "auth_tag": "\(String(repeating: "01", count: 16))",
             "nonce": "\(String(repeating: "02", count: 12))", "table_id": 7, "key_index": 42}, "timestamp": 1732000000}
            """)
        #expect(reference.shape == .hallmark && reference.cameraToken?.tableId == 7)
        let packed = try Self.read(
            #"{"image_hashes": [{"image_hash": "\#(Self.hash)", "modification_level": 0}], "encrypted_nuc_token": "\#(Self.token)", "table_references": [1, 2, 3], "key_indices": [1, 2, 3], "timestamp": 1}"#
        )
        #expect(packed.shape == .hallmark && packed.encryptedNucToken == Self.token)
    }

    @Test func whatTheSchemaRefusesIsNamed() {
        #expect(Self.error("[]")?.code == .malformed)
        #expect(Self.error(#"{"timestamp": 1}"#)?.code == .malformed)
        let noToken = Self.error(#"{"image_hash": "\#(Self.hash)", "timestamp": 1}"#)
        #expect(noToken?.code == .invalidField && noToken?.field == "$.encrypted_nuc_token")
        let shortHash = Self.error(
            #"{"image_hash": "abc", "encrypted_nuc_token": "\#(Self.token)", "table_references": [1, 2, 3], "key_indices": [1, 2, 3], "timestamp": 1, "device_signature": ""}"#
        )
        #expect(shortHash?.code == .invalidField && shortHash?.field == "$.image_hash")
        let fraction = Self.error(
            #"{"image_hash": "\#(Self.hash)", "encrypted_nuc_token": "\#(Self.token)", "table_references": [1, 2.5, 3], "key_indices": [1, 2, 3], "timestamp": 1, "device_signature": ""}"#
        )
        #expect(fraction?.field == "$.table_references[1]")
        // The error never carries the values.
        #expect(!(shortHash?.description.contains("abc") ?? true))
    }

    /// The reference requires a flat bundle's `device_signature` as a string (#53, 9).
    @Test func aFlatBundleCarriesItsDeviceSignatureAsAString() throws {
        let base =
            #""image_hash": "\#(Self.hash)", "encrypted_nuc_token": "\#(Self.token)", "table_references": [1, 2, 3], "key_indices": [1, 2, 3], "timestamp": 1"#
        for signature in ["5", "{}", "[1,2]", "null", "true", nil] {
            let member = signature.map { #", "device_signature": \#($0)"# } ?? ""
            let error = Self.error("{" + base + member + "}")
            #expect(error?.code == .invalidField && error?.field == "$.device_signature", "\(signature ?? "missing")")
        }
        for signature in [#""""#, #""c2ln""#, #""not base64 at all""#] {
            #expect(Self.error("{" + base + #", "device_signature": \#(signature)}"#) == nil, "\(signature)")
        }
    }

    /// `/submit-cert` (DESIGN BM-CERT) reads the reference's `CertificateBundle`: hex in either
    /// case, a lax timestamp, `software_cert` a string or null and dropped, `isp_validation` and
    /// unknown members ignored; the certificate and signature pass on exactly as sent, for the
    /// aggregator to judge (the iOS form signs the certificate as sent).
    @Test func aCertificateBundleIsReadAsTheReferenceReadsIt() throws {
        // Sent with a line break inside (JSON's \n), kept exactly.
        let (cert, sentCert) = ("LS0tLS1CRUdJTiBDRVJU\nSUZJQ0FURS0tLS0t", #"LS0tLS1CRUdJTiBDRVJU\nSUZJQ0FURS0tLS0t"#)
        func read(_ json: String) throws -> Submission {
            try CameraBundle.message(Array(json.utf8), kind: .certificate).body
        }
        let s = try read(
            #"{"image_hash": "\#(Self.hash.uppercased())", "camera_cert": "\#(sentCert)", "software_cert": null, "timestamp": "1732000000", "bundle_signature": "not checked here", "gps_hash": "\#(Self.hash.uppercased())", "isp_validation": {"variance_metric": 0.1}, "owner_hash": null, "firmware": 3}"#
        )
        #expect(s.shape == .certificateBundle && s.imageHash == Self.hash && s.gpsHash == Self.hash && s.ownerHash == nil)
        #expect(s.cameraCert == cert && s.bundleSignature == "not checked here" && s.timestamp == 1_732_000_000)
        #expect(s.ispValidation == nil && s.entries == [.init(imageHash: Self.hash, modificationLevel: 0)])
        #expect(
            try read(
                #"{"image_hash": "\#(Self.hash)", "camera_cert": "x", "software_cert": "c29mdA==", "timestamp": 1, "bundle_signature": "y"}"#
            ).cameraCert == "x")
        func error(_ json: String) -> CameraBundle.Refusal? {
            do {
                _ = try read(json)
                return nil
            } catch { return error as? CameraBundle.Refusal }
        }
        let base = #""image_hash": "\#(Self.hash)", "timestamp": 1"#
        #expect(error("{" + base + #", "bundle_signature": "y"}"#)?.field == "$.camera_cert")
        #expect(error("{" + base + #", "camera_cert": "x"}"#)?.field == "$.bundle_signature")
        #expect(error("{" + base + #", "camera_cert": 5, "bundle_signature": "y"}"#)?.field == "$.camera_cert")
        #expect(
            error("{" + base + #", "camera_cert": "x", "bundle_signature": "y", "software_cert": 5}"#)?.field == "$.software_cert"
        )
        #expect(error("{" + base + #", "camera_cert": "", "bundle_signature": "y"}"#)?.field == "$.camera_cert")
        // A token's bundle sent to /submit-cert is not a certificate bundle.
        let token = error(
            #"{"image_hash": "\#(Self.hash)", "encrypted_nuc_token": "\#(Self.token)", "table_references": [1, 2, 3], "key_indices": [1, 2, 3], "timestamp": 1, "device_signature": ""}"#
        )
        #expect(token?.field == "$.camera_cert")
        // The same bundle is the same receipt, written to the whole schema.
        let body = Array(#"{"image_hash": "\#(Self.hash)", "camera_cert": "x", "timestamp": 1, "bundle_signature": "y"}"#.utf8)
        let (message, json) = try CameraBundle.written(body, kind: .certificate)
        #expect(try CameraBundle.message(body, kind: .certificate).id == message.id)
        #expect(try #require(MessageSchemas.schema(Submission.schemaName)).validate(try JSONReader.parse(json)) == nil)
    }

    @Test func theSameBundleIsTheSameReceipt() throws {
        let body = Array(
            #"{"image_hash": "\#(Self.hash)", "encrypted_nuc_token": "\#(Self.token)", "table_references": [1, 2, 3], "key_indices": [1, 2, 3], "timestamp": 9, "device_signature": ""}"#
                .utf8)
        let other = Array(
            #"{"image_hash": "\#(Self.hash)", "encrypted_nuc_token": "\#(Self.token)", "table_references": [1, 2, 3], "key_indices": [1, 2, 3], "timestamp": 10, "device_signature": ""}"#
                .utf8)
        #expect(try CameraBundle.message(body).id == CameraBundle.message(body).id)
        #expect(try CameraBundle.message(body).id != CameraBundle.message(other).id)
    }

    /// The bundle is encoded once: what is published is the message's own encoding, and the
    /// receipt id is derived from the strict body's, as the published receipts were.
    @Test func whatIsPublishedIsTheMessagesEncoding() throws {
        let bodies = [
            #"{"image_hash": "\#(Self.hash)", "encrypted_nuc_token": "\#(Self.token)", "table_references": [1, 2, 3], "key_indices": [1, 2, 3], "timestamp": 9, "device_signature": "", "gps_hash": "\#(Self.hash.uppercased())"}"#,
            #"{"image_hashes": [{"image_hash": "\#(Self.hash)", "modification_level": 1, "parent_image_hash": "\#(Self.hash)"}], "camera_token": {"ciphertext": "\#(Self.hash)", "auth_tag": "\#(String(repeating: "1", count: 32))", "nonce": "\#(String(repeating: "2", count: 24))", "table_id": 4, "key_index": 5}, "timestamp": 7}"#,
        ]
        for body in bodies {
            let (message, json) = try CameraBundle.written(Array(body.utf8))
            #expect(json == (try JSONCoding.encode(message)))
            // Checked without its own envelope, yet what it writes passes the whole schema.
            let schema = try #require(MessageSchemas.schema(Submission.schemaName))
            #expect(schema.validate(try JSONReader.parse(json)) == nil)
            let strict = try JSONCoding.encode(message.body)
            #expect(message.id == MessageID.version8(SHA256Hash.digest(Array("hallmark-edge-receipt-v1\n".utf8) + strict)))
            #expect(message.correlationID == message.id.text)
        }
    }
}
