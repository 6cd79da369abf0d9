import Foundation
import HallmarkCrypto
import HallmarkMessages
import HallmarkPostgres

extension LogVerifier {
    /// The most links a chain is followed for (the schema's bound; the reference follows ten
    /// edits).
    static let maxChain = 16

    /// The provenance of `hash` (DESIGN BM-PROVENANCE), walked from the image to its original:
    /// at each image, its leaf where the log holds it as of `latest` (attested), else the claim
    /// that holds it (claimed); the walk ends at a capture, at an image neither knows, at an
    /// image met before, or after ``maxChain`` links. An attested link wins over a claim of the
    /// same image. Answered original first, with the edits claimed from the image itself.
    func provenance(
        _ hash: String, latest: SignedCheckpoint?, on connection: PostgresConnection
    ) async throws
        -> LogVerifyResult
    {
        var chain: [LogVerifyResult.ProvenanceLink] = []
        var seen: Set<String> = []
        var next: String? = hash
        while let image = next, chain.count < Self.maxChain, seen.insert(image).inserted,
            let raw = try? Hex.decode(image, length: 32)
        {
            if let found = try await store.leaves([raw], on: connection)[raw], let latest,
                UInt64(found.index) < latest.treeSize
            {
                let parent = found.leaf.parentHash.map { Hex.encode($0) }
                chain.append(
                    .init(
                        attested: image, level: Int(found.leaf.modificationLevel), parent: parent,
                        leafIndex: UInt64(found.index), timestamp: found.leaf.timestamp))
                next = parent
            } else if let held = try await claims.held([raw], on: connection)[image] {
                chain.append(.init(claimed: held.claim, claimID: held.id.lowercasedText))
                next = held.claim.originalImageHash
            } else {
                next = nil
            }
        }
        let derived = try await claims.derived(from: try Hex.decode(hash, length: 32), limit: Self.maxChain, on: connection)
        return .traced(
            imageHash: hash, chain: chain.reversed(),
            derived: derived.map { .init(claimed: $0.claim, claimID: $0.id.lowercasedText) }, checkpoint: latest)
    }
}
