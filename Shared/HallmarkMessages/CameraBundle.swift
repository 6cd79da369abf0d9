import Foundation
import HallmarkCore
import HallmarkCrypto

/// What a camera POSTs, read as the Birthmark reference server reads it, and the strict
/// `hallmark.submission.v1` made of it (DESIGN BM-EDGE: lenient in, strict out).
///
/// Read as the reference does (pydantic's lax mode): members it does not know are ignored; hex
/// in either case; integers as JSON integers, integral numbers or digit strings; `null` for an
/// absent optional member. A certificate bundle (DESIGN BM-CERT) is what `/submit-cert` is
/// sent (``Kind/certificate``, ``certificateBundle(_:)``); the others, three bodies, are told
/// apart by their members:
/// - the flat bundle (`image_hash`): the reference Raspberry Pi's (`/submit-legacy`) and the
///   mobile app's (`/submit`, no `modification_level`: 0);
/// - `image_hashes` with `submission_type` or `manufacturer_cert`: the reference server's
///   `CameraSubmission`, kept as one (the aggregator checks its `authority_id`);
/// - `image_hashes` otherwise: Hallmark's own body, with a token in either layout.
///
/// Written strictly: lower-case hex, only the members the schema knows. A flat bundle becomes
/// Hallmark's own body, so `device_signature` and `isp_validation` never reach a topic. The
/// message is checked against its schema before it is sent; what the schema refuses is a 400
/// naming the member, never a message the aggregator would refuse as malformed.
package enum CameraBundle {
    /// The strict submission `body` stands for. Its id (the receipt id) is derived from the
    /// strict body, so a camera that sends the same bundle again (the reference Pi retries after
    /// a 5xx or a timeout) sends the same submission: the aggregator takes it for a redelivery
    /// and answers it once, never `replayed_token` for its own retry.
    package static func message(_ body: [UInt8], kind: Kind = .token) throws(Refusal) -> Message<Submission> {
        try written(body, kind: kind).message
    }

    /// Which of the reference's submit paths a body came to.
    package enum Kind: Sendable {
        /// `/submit` and `/submit-legacy`: a token's bundle.
        case token
        /// `/submit-cert`: a certificate bundle.
        case certificate
    }

    /// ``message(_:)`` and its JSON as it is published (encoded once, for the schema's check
    /// and for the topic).
    package static func written(
        _ body: [UInt8], kind: Kind = .token
    ) throws(Refusal) -> (message: Message<Submission>, json: [UInt8]) {
        guard let parsed = try? JSONReader.parse(body), let object = parsed.object else {
            throw Refusal(.malformed, "the body is not a JSON object")
        }
        let reader = Reader(object: object)
        let submission: Submission
        let flat = kind == .token && reader.present("image_hash")
        if kind == .certificate {
            submission = try certificateBundle(reader)
        } else if flat {
            submission = try flatBundle(reader)
        } else if reader.present("image_hashes") {
            submission = try hashes(reader)
        } else {
            throw Refusal(.malformed, "a bundle has image_hash or image_hashes", field: "$.image_hash")
        }
        // Encoded once, as a tree: its bytes name the receipt, the header's members join it,
        // the schema checks it and it is written once for the topic (no second encoding of the
        // bundle, and no parse of what was just written).
        guard let strict = try? submission.jsonValue(), case .object(let members) = strict else {
            throw Refusal(.malformed, "the bundle cannot be written as a submission")
        }
        let named = receiptDomain + JSONWriter.write(strict)
        let id = MessageID.version8(named.withUnsafeBytes { SHA256Hash.digest(bytes: $0) })
        let message = Message(submission, id: id, correlationID: id.text)
        let value = message.written(body: members)
        try check(value, flat: flat)
        return (message, JSONWriter.write(value))
    }

    /// What the receipt id's hash begins with, before the strict body.
    private static let receiptDomain = Array("hallmark-edge-receipt-v1\n".utf8)

    private static func flatBundle(_ r: Reader) throws(Refusal) -> Submission {
        let entry = Submission.ImageHash(
            imageHash: try r.hex("image_hash"), modificationLevel: try r.integer("modification_level", default: 0),
            parentImageHash: try r.optionalHex("parent_image_hash"))
        let token = BirthmarkMobileToken(
            encryptedNucToken: try r.string("encrypted_nuc_token"), tableReferences: try r.integers("table_references"),
            keyIndices: try r.integers("key_indices"))
        let submission = Submission(
            imageHashes: [entry], token: .mobile(token), timestamp: try r.timestamp(),
            gpsHash: try r.optionalHex("gps_hash"), ownerHash: try r.optionalHex("owner_hash"))
        // The reference's `AuthenticationBundle` requires `device_signature` as bytes (pydantic
        // takes a string, nothing else, and not null). It is read only to refuse what the
        // reference refuses; it is never forwarded.
        _ = try r.string("device_signature")
        return submission
    }

    private static func hashes(_ r: Reader) throws(Refusal) -> Submission {
        guard let list = r.object["image_hashes"]?.array else {
            throw Refusal(.invalidField, "image_hashes is a list of image hash entries", field: "$.image_hashes")
        }
        var entries: [Submission.ImageHash] = []
        for (i, item) in list.enumerated() {
            guard let object = item.object else {
                throw Refusal(.invalidField, "an image hash entry is an object", field: "$.image_hashes[\(i)]")
            }
            let e = Reader(object: object, path: "$.image_hashes[\(i)]")
            entries.append(
                .init(
                    imageHash: try e.hex("image_hash"), modificationLevel: try e.integer("modification_level", default: 0),
                    parentImageHash: try e.optionalHex("parent_image_hash")))
        }
        let timestamp = try r.timestamp()
        if r.present("submission_type") || r.present("manufacturer_cert") {
            guard try r.string("submission_type", default: "camera") == "camera" else {
                throw Refusal(.invalidField, "submission_type is camera", field: "$.submission_type")
            }
            guard let cert = r.object["manufacturer_cert"]?.object else {
                throw Refusal(.invalidField, "manufacturer_cert is an object", field: "$.manufacturer_cert")
            }
            let c = Reader(object: cert, path: "$.manufacturer_cert")
            return Submission(
                cameraSubmission: entries, cameraToken: try cameraToken(r),
                manufacturerCert: .init(
                    authorityID: try c.string("authority_id"), validationEndpoint: try c.string("validation_endpoint")),
                timestamp: timestamp)
        }
        let token: BirthmarkToken
        if r.present("camera_token") {
            token = .reference(try cameraToken(r))
        } else {
            token = .mobile(
                BirthmarkMobileToken(
                    encryptedNucToken: try r.string("encrypted_nuc_token"), tableReferences: try r.integers("table_references"),
                    keyIndices: try r.integers("key_indices")))
        }
        return Submission(
            imageHashes: entries, token: token, timestamp: timestamp, gpsHash: try r.optionalHex("gps_hash"),
            ownerHash: try r.optionalHex("owner_hash"))
    }

    private static func cameraToken(_ r: Reader) throws(Refusal) -> BirthmarkCameraToken {
        guard let object = r.object["camera_token"]?.object else {
            throw Refusal(.invalidField, "camera_token is an object", field: "$.camera_token")
        }
        let t = Reader(object: object, path: "$.camera_token")
        return BirthmarkCameraToken(
            ciphertext: try t.hex("ciphertext"), authTag: try t.hex("auth_tag"), nonce: try t.hex("nonce"),
            tableId: try t.integer("table_id"), keyIndex: try t.integer("key_index"))
    }

    /// Refuses, naming the member as the camera wrote it, what the schema would.
    private static func check(_ value: JSONValue, flat: Bool) throws(Refusal) {
        // The envelope is this function's own (an ``EnvelopeHeader``'s members), so only the
        // body is checked; `CameraBundleTests` holds what is written to the full schema.
        guard let schema = MessageSchemas.ownEnvelopeSchema(Submission.schemaName) else {
            throw Refusal(.malformed, "the bundle cannot be written as a submission")
        }
        guard let violation = schema.validate(value) else { return }
        // A flat bundle was written as one entry of image_hashes.
        let field = flat ? violation.path.replacingOccurrences(of: "$.image_hashes[0].", with: "$.") : violation.path
        throw Refusal(.invalidField, violation.reason, field: field)
    }
}
