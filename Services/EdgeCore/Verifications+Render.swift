import Foundation
import HallmarkCore
import HallmarkMessages

/// The bodies a verification answer is read as, and the node status.
extension Verifications {
    /// The members of a verification that the log's proofs do not cover: kept beside the leaf,
    /// not in it (DESIGN BM-PROVENANCE). Every verify answer names them.
    static let notInProof: JSONValue = .array([.string("gps_hash"), .string("owner_hash")])

    /// The reference verifier's fields (`verified`, `image_hash`, `timestamp`, `aggregator`,
    /// and its `block_height` and `tx_hash`, which a log has none of), `gps_hash` and
    /// `owner_hash` as the camera sent them (named in `not_in_proof`), then what makes the
    /// answer checkable: `modification_level`, `parent_image_hash`, `leaf_index`, `tree_size`,
    /// `checkpoint` (the C2SP signed note, witness cosignatures included), `inclusion_proof`
    /// (hex, leaf to root) and `witnessed`.
    static func render(_ result: LogVerifyResult, hash: String) -> [UInt8] {
        let note = result.checkpoint?.note
        var object: [String: JSONValue] = [
            "verified": .bool(result.status == .found), "image_hash": .string(hash),
            "aggregator": origin(result).map(JSONValue.string) ?? .null, "block_height": .null, "tx_hash": .null,
            "tree_size": result.checkpoint.map { .number(String($0.treeSize)) } ?? .null,
            "checkpoint": note.map(JSONValue.string) ?? .null,
            "timestamp": .null,
        ]
        attribution(result, into: &object)
        if let record = result.record, let index = result.leafIndex {
            object["timestamp"] = .number(String(record.timestamp))
            object["modification_level"] = .number(String(record.modificationLevel))
            object["parent_image_hash"] = record.parentImageHash.map(JSONValue.string) ?? .null
            object["leaf_index"] = .number(String(index))
            object["inclusion_proof"] = .array((result.inclusionProof ?? []).map(JSONValue.string))
        }
        if let witnessed = result.witnessed { object["witnessed"] = .bool(witnessed) }
        return JSONWriter.write(.object(object))
    }

    /// The reference node's answer (`HashVerification`), which the reference verifier web app
    /// reads: `verified`, `timestamp`, `block_height` (the leaf index), `tx_id` (null: a log has
    /// no transactions), `submission_server_id` (the log's origin), `modification_level`,
    /// `parent_image_hash`; every one null but `verified` when the hash is not in the log, as
    /// the node answers. Then `gps_hash` and `owner_hash` (which that app reads for the owner's
    /// attribution), named in `not_in_proof`.
    static func node(_ result: LogVerifyResult, hash: String) -> [UInt8] {
        var object: [String: JSONValue] = [
            "verified": .bool(false), "timestamp": .null, "block_height": .null, "tx_id": .null,
            "submission_server_id": .null, "modification_level": .null, "parent_image_hash": .null,
        ]
        attribution(result, into: &object)
        if let record = result.record, let index = result.leafIndex, result.status == .found {
            object["verified"] = .bool(true)
            object["timestamp"] = .number(String(record.timestamp))
            object["block_height"] = .number(String(index))
            object["submission_server_id"] = origin(result).map(JSONValue.string) ?? .null
            object["modification_level"] = .number(String(record.modificationLevel))
            object["parent_image_hash"] = record.parentImageHash.map(JSONValue.string) ?? .null
        }
        return JSONWriter.write(.object(object))
    }

    /// The reference node's status, from the latest signed checkpoint: `node_id` (the log's
    /// origin; null before its first checkpoint), `block_height` and `total_hashes` (its tree size: a log's height is its size),
    /// `last_block_time` (when it was signed, RFC 3339) and `status`; with the checkpoint's
    /// `root_hash` and signed `checkpoint` note, so what the status says can be checked.
    static func status(_ head: SignedCheckpoint?) -> [UInt8] {
        let size = JSONValue.number(String(head?.treeSize ?? 0))
        let object: [String: JSONValue] = [
            "node_id": head?.note.flatMap(origin(of:)).map(JSONValue.string) ?? .null,
            "block_height": size, "total_hashes": size,
            "last_block_time": head.map { ProvenanceAnswer.time($0.timestamp) } ?? .null,
            "status": .string("operational"),
            "root_hash": head.map { .string($0.rootHash) } ?? .null,
            "checkpoint": head?.note.map(JSONValue.string) ?? .null,
        ]
        return JSONWriter.write(.object(object))
    }

    /// The log's origin: its checkpoint note's first line.
    private static func origin(_ result: LogVerifyResult) -> String? {
        result.checkpoint?.note.flatMap(origin(of:))
    }

    private static func origin(of note: String) -> String? {
        note.split(separator: "\n", maxSplits: 1).first.map(String.init)
    }

    /// `gps_hash` and `owner_hash` (null when the camera sent none, or the hash is not logged),
    /// and `not_in_proof` naming them.
    private static func attribution(_ result: LogVerifyResult, into object: inout [String: JSONValue]) {
        let found = result.status == .found ? result.attribution : nil
        object["gps_hash"] = found?.gpsHash.map(JSONValue.string) ?? .null
        object["owner_hash"] = found?.ownerHash.map(JSONValue.string) ?? .null
        object["not_in_proof"] = notInProof
    }
}
