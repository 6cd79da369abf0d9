import Foundation

extension TransparencyProof {
    /// Checks the proof offline, as C2SP tlog-proof says: the checkpoint opens with the log's
    /// `vkey` (``CheckpointText/open(_:vkey:)``), and `leafHash` leads through the inclusion
    /// proof to the checkpoint's root at `index`. Returns the checkpoint; throws
    /// `authentication_failed`, `malformed_note` or `invalid_proof`.
    public func verify(leafHash: Data, vkey: NoteVerifierKey) throws(HallmarkCryptoError) -> CheckpointText {
        let text = try CheckpointText.open(checkpoint, vkey: vkey)
        guard index < text.treeSize, let leafIndex = Int(exactly: index), let size = Int(exactly: text.treeSize),
            MerkleTree.verifyInclusion(
                leafHash: leafHash, leafIndex: leafIndex, treeSize: size, proof: inclusionProof, root: text.rootHash)
        else {
            throw HallmarkCryptoError(.invalidProof, "the inclusion proof does not lead to the checkpoint's root")
        }
        return text
    }
}
