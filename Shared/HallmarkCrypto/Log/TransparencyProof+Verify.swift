import Foundation

extension TransparencyProof {
    /// Checks the proof offline, as C2SP tlog-proof says: the checkpoint is signed by the
    /// log's `vkey` (its origin is the key's name), and `leafHash` leads through the inclusion
    /// proof to the checkpoint's root at `index`. Returns the checkpoint; throws
    /// `authentication_failed`, `malformed_note` or `invalid_proof`.
    public func verify(leafHash: Data, vkey: NoteVerifierKey) throws(HallmarkCryptoError) -> CheckpointText {
        let verified = try checkpoint.verified(by: [vkey])
        guard verified.contains(where: { $0.key == vkey }) else {
            throw HallmarkCryptoError(.authenticationFailed, "the log did not sign the checkpoint")
        }
        let text = try CheckpointText(parsing: checkpoint.text)
        guard text.origin == vkey.name else {
            throw HallmarkCryptoError(.authenticationFailed, "the checkpoint's origin is not the key's name")
        }
        guard index < text.treeSize, let leafIndex = Int(exactly: index), let size = Int(exactly: text.treeSize),
            MerkleTree.verifyInclusion(
                leafHash: leafHash, leafIndex: leafIndex, treeSize: size, proof: inclusionProof, root: text.rootHash)
        else {
            throw HallmarkCryptoError(.invalidProof, "the inclusion proof does not lead to the checkpoint's root")
        }
        return text
    }
}
