import Foundation
import HallmarkCore

/// What an editor POSTs to `/api/v1/modifications` (the reference editing plugin's
/// `ModificationRecord`), read as the reference server reads it, and the strict
/// `hallmark.modification.claim.v1` made of it (DESIGN BM-EDGE: lenient in, strict out;
/// BM-PROVENANCE: a record is a claim).
///
/// Read as pydantic's lax mode reads the reference's model: members it does not know are
/// ignored; hex in either case; integers as JSON integers, integral numbers or digit strings;
/// booleans also as `"true"`/`"false"`, `"yes"`/`"no"`, `"on"`/`"off"`, `1`/`0`; dimensions as
/// `[width, height]`; times as Python's `datetime.fromisoformat` reads them, a time without an
/// offset taken as UTC (the plugin writes `utcnow()`); `authority_type` `software` when absent.
/// Written strictly, with Hallmark's timestamps, and checked against the claim's schema before
/// it is sent: what the schema refuses is a 400 naming the member.
package enum EditRecord {
    /// The strict claim `body` stands for, and its JSON as published, under a new id: the
    /// same record sent again is another message, which the aggregator records under the
    /// first one's claim id (one claim per final image).
    package static func written(
        _ body: [UInt8]
    ) throws(CameraBundle.Refusal) -> (
        message: Message<ModificationClaim>, json: [UInt8]
    ) {
        guard let parsed = try? JSONReader.parse(body), let object = parsed.object else {
            throw CameraBundle.Refusal(.malformed, "the body is not a JSON object")
        }
        let r = CameraBundle.Reader(object: object)
        let claim = ModificationClaim(
            originalImageHash: try r.hex("original_image_hash"), finalImageHash: try r.hex("final_image_hash"),
            modificationLevel: try r.integer("modification_level"), authenticated: try boolean(r, "authenticated"),
            originalDimensions: try dimensions(r, "original_dimensions"), finalDimensions: try dimensions(r, "final_dimensions"),
            softwareID: try r.string("software_id"), pluginVersion: try r.string("plugin_version"),
            initializedAt: try time(r, "initialized_at"), exportedAt: try time(r, "exported_at"),
            authorityType: try r.string("authority_type", default: "software").lowercased())
        guard let strict = try? JSONCoding.value(of: claim), case .object(let members) = strict else {
            throw CameraBundle.Refusal(.malformed, "the record cannot be written as a claim")
        }
        let id = MessageID.random()
        let message = Message(claim, id: id, correlationID: id.text)
        let value = message.written(body: members)
        guard let schema = MessageSchemas.ownEnvelopeSchema(ModificationClaim.schemaName) else {
            throw CameraBundle.Refusal(.malformed, "the record cannot be written as a claim")
        }
        if let violation = schema.validate(value) {
            throw CameraBundle.Refusal(.invalidField, violation.reason, field: violation.path)
        }
        return (message, JSONWriter.write(value))
    }

    private static func boolean(_ r: CameraBundle.Reader, _ name: String) throws(CameraBundle.Refusal) -> Bool {
        let refusal = CameraBundle.Refusal(.invalidField, "\(name) is a boolean", field: "$.\(name)")
        switch r.object[name] {
        case .bool(let b)?: return b
        case .number?:
            guard let n = r.object[name]?.integer, n == 0 || n == 1 else { throw refusal }
            return n == 1
        case .string(let text)?:
            switch text.lowercased() {
            case "true", "t", "yes", "y", "on", "1": return true
            case "false", "f", "no", "n", "off", "0": return false
            default: throw refusal
            }
        case nil, .null?: throw CameraBundle.Refusal(.invalidField, "\(name) is required", field: "$.\(name)")
        default: throw refusal
        }
    }

    private static func dimensions(_ r: CameraBundle.Reader, _ name: String) throws(CameraBundle.Refusal) -> [Int]? {
        guard r.present(name) else { return nil }
        let pair = try r.integers(name)
        guard pair.count == 2 else {
            throw CameraBundle.Refusal(.invalidField, "\(name) is [width, height]", field: "$.\(name)")
        }
        return pair
    }

    private static func time(_ r: CameraBundle.Reader, _ name: String) throws(CameraBundle.Refusal) -> Timestamp {
        guard let date = IsoTime.date(try r.string(name)), let timestamp = IsoTime.timestamp(date) else {
            throw CameraBundle.Refusal(.invalidField, "\(name) is an ISO 8601 time", field: "$.\(name)")
        }
        return timestamp
    }
}
