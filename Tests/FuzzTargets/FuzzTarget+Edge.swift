import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages

extension FuzzTarget {
    /// What a camera POSTs to the edge, read as the reference server reads it (`CameraBundle`
    /// and its lax reader).
    static let edgeBundles = FuzzTarget(
        name: "edge-bundles",
        summary:
            "camera bodies the edge reads leniently: a refusal is a typed 400 naming no value; what it accepts is a strict submission the aggregator's intake takes, without the device's fields, under one receipt id",
        run: EdgeBundleTarget.run, seeds: { EdgeBundleTarget.seeds }, dictionary: EdgeBundleTarget.dictionary)
}

enum EdgeBundleTarget {
    static func run(_ bytes: [UInt8]) throws(FuzzFinding) {
        let written: (message: Message<Submission>, json: [UInt8])
        do {
            written = try CameraBundle.written(bytes)
        } catch {
            try require([.malformed, .invalidField].contains(error.code), "a body is refused with \(error.code.rawValue)")
            try require(error.field.map { $0.hasPrefix("$") } ?? true, "a refusal's field is not a JSON path")
            return
        }
        // What the edge publishes is what the aggregator's intake takes as a valid submission.
        guard let (_, valid) = try FuzzIntake.read(written.json, topic: "edge", schemas: [Submission.schemaName]), valid else {
            throw FuzzFinding("an accepted body is written as a submission the intake refuses")
        }
        let object = (try? JSONReader.parse(written.json))?.object ?? [:]
        try require(
            object["device_signature"] == nil && object["isp_validation"] == nil, "a device field reaches the submission")
        // The camera's retry of the same bytes is the same submission: the same receipt id,
        // which derives from the strict body (only the envelope's produced_at is new).
        try require((try? CameraBundle.written(bytes))?.message.id == written.message.id, "the same body makes two receipts")
    }

    static let hash = String(repeating: "ab", count: 32)
    static let token = Base64.encode(Data(repeating: 7, count: 60))

    static let seeds: [[UInt8]] = [
        #"{"image_hash": "\#(hash.uppercased())", "encrypted_nuc_token": "\#(token)", "table_references": [1, "2", 3.0], "key_indices": [0, 999, 5], "timestamp": "1732000000", "modification_level": 1, "parent_image_hash": "\#(String(repeating: "CD", count: 32))", "device_signature": "c2ln", "isp_validation": {"variance_metric": 0.02}}"#,
        #"{"image_hash": "\#(hash)", "encrypted_nuc_token": "\#(token)", "table_references": [1, 2, 3], "key_indices": [4, 5, 6], "timestamp": 1732000000, "device_signature": "c2ln", "gps_hash": "\#(hash)", "owner_hash": null}"#,
        #"{"submission_type": "camera", "image_hashes": [{"image_hash": "\#(hash)", "modification_level": 0, "parent_image_hash": null}], "camera_token": {"ciphertext": "\#(String(repeating: "EF", count: 32))", "auth_tag": "\#(String(repeating: "01", count: 16))", "nonce": "\#(String(repeating: "02", count: 12))", "table_id": 7, "key_index": 42}, "manufacturer_cert": {"authority_id": "SIMULATED_CAMERA_001", "validation_endpoint": "http://localhost:8001/validate"}, "timestamp": 1732000000}"#,
        #"{"image_hashes": [{"image_hash": "\#(hash)", "modification_level": 0}, {"image_hash": "\#(String(repeating: "cd", count: 32))", "modification_level": 1, "parent_image_hash": "\#(hash)"}], "encrypted_nuc_token": "\#(token)", "table_references": [1, 2, 3], "key_indices": [1, 2, 3], "timestamp": 1}"#,
    ].map { Array($0.utf8) }

    static let dictionary = [
        "\"image_hash\"", "\"image_hashes\"", "\"modification_level\"", "\"parent_image_hash\"", "\"encrypted_nuc_token\"",
        "\"table_references\"", "\"key_indices\"", "\"timestamp\"", "\"device_signature\"", "\"isp_validation\"",
        "\"gps_hash\"", "\"owner_hash\"", "\"submission_type\"", "\"camera\"", "\"camera_token\"", "\"ciphertext\"",
        "\"auth_tag\"", "\"nonce\"", "\"table_id\"", "\"key_index\"", "\"manufacturer_cert\"", "\"authority_id\"",
        "\"validation_endpoint\"", "null", "true", "1e3", "-0", "\"\\u0000\"",
    ]
}
