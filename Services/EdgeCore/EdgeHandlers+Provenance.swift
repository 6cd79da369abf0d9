import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import HallmarkRuntime

/// Edits and provenance (DESIGN BM-PROVENANCE): `POST /api/v1/modifications`,
/// `GET /api/v1/provenance/{hash}` and `GET /api/v1/modifications/{hash}`, in the reference's
/// shapes, each link marked `attested` (a leaf of the log) or `claimed` (an editor's record).
extension EdgeHandlers {
    /// Publishes the editor's record as a claim and answers the reference's `202` once the
    /// aggregator recorded it: `status` `recorded`, `final_image_hash`, `modification_level`,
    /// `chain_id` (the claim's id), `verification_url` (its provenance) and `message`. Another
    /// edit's claim on the same final image is `409 already_claimed`; an edit of an image into
    /// itself a `400`; no answer in time a `503`.
    func claim(_ body: [UInt8]) async throws -> [UInt8] {
        let (message, value): (Message<ModificationClaim>, [UInt8])
        do { (message, value) = try EditRecord.written(body) } catch { throw EdgeError(error) }
        guard
            let bytes = try await Self.request(
                message.id.text, value: value, to: configuration.modifications, key: Array(message.body.finalImageHash.utf8),
                answers: answers, producer: producer, timeout: configuration.verifyWait)
        else { throw EdgeError(.unavailable, "the log did not answer in time") }
        guard let result = try? JSONCoding.decode(Message<ModificationResult>.self, from: bytes).body else {
            throw EdgeError(.unavailable, "the log's answer cannot be read")
        }
        switch (result.status, result.reason) {
        case (.recorded, _):
            let final = message.body.finalImageHash
            return JSONWriter.write(
                .object([
                    "status": .string("recorded"), "final_image_hash": .string(final),
                    "modification_level": .number(String(message.body.modificationLevel)),
                    "chain_id": .string(result.claimID ?? message.id.text),
                    "verification_url": .string("/api/v1/provenance/\(final)"),
                    "message": .string("Modification record accepted and stored as a claim: no authority attests edits yet"),
                    "basis": .string("claimed"),
                ]))
        case (_, .alreadyClaimed?):
            throw EdgeError(.alreadyClaimed, "another edit's claim holds this final image", field: "$.final_image_hash")
        case (_, .invalidProvenance?):
            throw EdgeError(.invalidField, "an edit's final image is not its original", field: "$.final_image_hash")
        case (_, .malformed?), (_, .oversized?):
            throw EdgeError(.malformed, "the log refused the record")
        default:
            throw EdgeError(.unavailable, "the record cannot be stored now")
        }
    }

    /// The provenance of `text` (an image hash, either case), asked of the aggregator: the chain
    /// the log and the claims know, original first (empty when they know nothing of it), and
    /// the edits claimed from it.
    func trace(
        _ text: String
    ) async throws -> (hash: String, chain: [LogVerifyResult.ProvenanceLink], derived: [LogVerifyResult.ProvenanceLink]) {
        let hash = try Self.requireImageHash(text)
        let result = try await verifications.result(of: LogVerifyRequest(provenanceOf: hash))
        guard result.status == .traced, let chain = result.chain else {
            throw EdgeError(.unavailable, "the log's answer cannot be read")
        }
        return (hash, chain, result.derived ?? [])
    }

    /// `GET /api/v1/provenance/{hash}`: the reference's `ProvenanceChain` (404 when nothing is
    /// known of the image).
    func provenance(_ text: String) async throws -> [UInt8] {
        let (hash, chain, _) = try await trace(text)
        guard !chain.isEmpty else { throw EdgeError(.notFound, "no provenance is known for this image", field: "image_hash") }
        return ProvenanceAnswer.chain(hash, chain)
    }

    /// `GET /api/v1/modifications/{hash}`: the reference's edit history of the image, both
    /// ways (`200` with empty lists when none is known, as the reference answers).
    func modifications(_ text: String) async throws -> [UInt8] {
        let (hash, chain, derived) = try await trace(text)
        return ProvenanceAnswer.history(hash, chain, derived: derived)
    }
}
