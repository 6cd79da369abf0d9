import Foundation
import HallmarkCore
import HallmarkMessages

/// The reference server's provenance answers, written from the log's `traced` answer. Each
/// link says whether the log attests it (`status` `attested`: a leaf, with its index) or an
/// editor claims it (`claimed`). `verified` is true only when the image itself is a leaf of the
/// log: a claim never makes it so.
enum ProvenanceAnswer {
    /// `{image_hash, verified, chain: [{hash, type, timestamp, authority_type,
    /// modification_level, software_version, parent_image_hash, status, …}], chain_length}`,
    /// original first.
    static func chain(_ hash: String, _ chain: [LogVerifyResult.ProvenanceLink]) -> [UInt8] {
        let verified = chain.last.map { $0.imageHash == hash && $0.basis == .attested } ?? false
        return JSONWriter.write(
            .object([
                "image_hash": .string(hash), "verified": .bool(verified), "chain": .array(chain.map(link)),
                "chain_length": .number(String(chain.count)),
            ]))
    }

    /// `{image_hash, as_original: [{final_hash, …}], as_final: [{original_hash, …}]}`: the
    /// edits claimed from the image, and the link that made it, each with its `status`.
    static func history(
        _ hash: String, _ chain: [LogVerifyResult.ProvenanceLink], derived: [LogVerifyResult.ProvenanceLink]
    ) -> [UInt8] {
        let asFinal = chain.last.flatMap { last -> JSONValue? in
            guard last.imageHash == hash, let original = last.parentImageHash else { return nil }
            return entry(last, ("original_hash", original))
        }
        return JSONWriter.write(
            .object([
                "image_hash": .string(hash),
                "as_original": .array(derived.map { entry($0, ("final_hash", $0.imageHash)) }),
                "as_final": .array(asFinal.map { [$0] } ?? []),
            ]))
    }

    /// Unix seconds as an RFC 3339 time, or as the number when no such time can say them (a
    /// camera's declared capture time is any u64).
    static func time(_ seconds: UInt64) -> JSONValue {
        // 10000-01-01T00:00:00Z.
        guard seconds < 253_402_300_800 else { return .number(String(seconds)) }
        return .string(Timestamp(Date(timeIntervalSince1970: Double(seconds))).text)
    }

    private static func entry(_ link: LogVerifyResult.ProvenanceLink, _ other: (String, String)) -> JSONValue {
        .object([
            other.0: .string(other.1), "modification_level": .number(String(link.modificationLevel)),
            "software_id": link.softwareID.map(JSONValue.string) ?? .null,
            "exported_at": link.exportedAt.map { .string($0.text) } ?? .null,
            "status": .string(link.basis.rawValue),
        ])
    }

    private static func link(_ link: LogVerifyResult.ProvenanceLink) -> JSONValue {
        let capture = link.basis == .attested && link.parentImageHash == nil
        let time: JSONValue =
            switch link.basis {
            case .attested: link.timestamp.map(time) ?? .null
            case .claimed: link.exportedAt.map { .string($0.text) } ?? .null
            }
        var object: [String: JSONValue] = [
            "hash": .string(link.imageHash), "type": .string(capture ? "capture" : "modification"), "timestamp": time,
            "authority_type": .string(link.basis == .attested ? "manufacturer" : link.authorityType ?? "software"),
            "modification_level": .number(String(link.modificationLevel)),
            "software_version": link.pluginVersion.map(JSONValue.string) ?? .null,
            "parent_image_hash": link.parentImageHash.map(JSONValue.string) ?? .null,
            "status": .string(link.basis.rawValue),
        ]
        if let index = link.leafIndex { object["leaf_index"] = .number(String(index)) }
        if let id = link.claimID { object["claim_id"] = .string(id) }
        if let software = link.softwareID { object["software_id"] = .string(software) }
        if let authenticated = link.authenticated { object["claimed_authenticated"] = .bool(authenticated) }
        return .object(object)
    }
}
