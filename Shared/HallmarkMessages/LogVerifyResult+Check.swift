import Foundation
import HallmarkCrypto

extension LogVerifyResult {
    /// Why an answer does not check out offline.
    public enum CheckFailure: String, Error, Sendable, CustomStringConvertible {
        /// The checkpoint is not signed by the given key (or names another key).
        case badSignature = "bad_signature"
        /// The audit path does not lead from the record to the checkpoint's root.
        case badInclusionProof = "bad_inclusion_proof"
        /// The consistency proof does not join the two checkpoints.
        case badConsistencyProof = "bad_consistency_proof"
        /// The answer is about another hash, or lacks a field its status needs.
        case incomplete

        public var description: String { rawValue }
    }

    /// Checks the answer with nothing but the aggregator's public key, as a third party would:
    /// the checkpoint's signature, then for `found` the record's leaf hash through the audit
    /// path to the signed root, and for `consistent` the proof from `earlier` (a checkpoint the
    /// asker already trusts, of size `old_tree_size`) to the signed one.
    public func check(
        publicKey: some DataProtocol, imageHash: String? = nil,
        earlier: SignedCheckpoint? = nil
    ) -> Result<Void, CheckFailure> {
        guard let checkpoint, let head = checkpoint.checkpoint else { return .failure(.incomplete) }
        guard checkpoint.verify(publicKey: publicKey) else { return .failure(.badSignature) }
        switch status {
        case .found:
            var parent: Data?
            if let text = record?.parentImageHash {
                guard let hash = try? Hex.decode(text, length: 32) else { return .failure(.incomplete) }
                parent = hash
            }
            guard let record, let leafIndex, let inclusionProof, imageHash.map({ $0 == record.imageHash }) ?? true,
                let hash = try? Hex.decode(record.imageHash, length: 32),
                let level = UInt8(exactly: record.modificationLevel),
                let leaf = try? BirthmarkLogLeaf(
                    imageHash: hash, timestamp: record.timestamp, modificationLevel: level,
                    parentHash: parent),
                let proof = try? inclusionProof.map({ try Hex.decode($0, length: 32) }),
                let index = Int(exactly: leafIndex), let size = Int(exactly: head.treeSize)
            else { return .failure(.incomplete) }
            return MerkleTree.verifyInclusion(
                leafHash: leaf.leafHash, leafIndex: index, treeSize: size, proof: proof,
                root: head.rootHash) ? .success(()) : .failure(.badInclusionProof)
        case .notFound:
            return imageHash.map({ $0 == self.imageHash }) ?? true ? .success(()) : .failure(.incomplete)
        case .consistent:
            guard let oldTreeSize, let consistencyProof, let earlier, earlier.treeSize == oldTreeSize,
                earlier.verify(publicKey: publicKey), let old = earlier.checkpoint,
                let proof = try? consistencyProof.map({ try Hex.decode($0, length: 32) }),
                let oldSize = Int(exactly: oldTreeSize), let newSize = Int(exactly: head.treeSize)
            else {
                return .failure(.incomplete)
            }
            return MerkleTree.verifyConsistency(
                oldSize: oldSize, newSize: newSize, oldRoot: old.rootHash, newRoot: head.rootHash,
                proof: proof) ? .success(()) : .failure(.badConsistencyProof)
        case .rejected:
            return .failure(.incomplete)
        case .traced:
            // A chain carries no proofs: each attested link checks with an inclusion question.
            return .failure(.incomplete)
        }
    }
}
