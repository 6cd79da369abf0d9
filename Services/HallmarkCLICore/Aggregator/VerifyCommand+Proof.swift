import Foundation
import HallmarkCore
import HallmarkCrypto

extension VerifyCommand {
    /// Checks a C2SP tlog-proof file offline: the log's signature on its checkpoint, the leaf
    /// (the proof's `extra`: the 73-byte log leaf) through the inclusion proof to the root,
    /// and, given the photo's hash, that the leaf is that photo's.
    static func check(proofFile path: String, vkey: NoteVerifierKey, imageHash: String?) -> Verdict {
        guard let bytes = FileManager.default.contents(atPath: path) else {
            return Verdict(text: "INVALID PROOF: cannot read \(path)", code: 2)
        }
        do {
            let proof = try TransparencyProof.parse(Array(bytes))
            guard let extra = proof.extra else {
                return Verdict(text: "INVALID PROOF: it does not carry the log leaf (its extra line)", code: 2)
            }
            let leaf = try BirthmarkLogLeaf(bytes: extra)
            if let imageHash, Hex.encode(leaf.imageHash) != imageHash {
                return Verdict(text: "INVALID PROOF: it is about another image (\(Hex.encode(leaf.imageHash)))", code: 2)
            }
            let checkpoint = try proof.verify(leafHash: leaf.leafHash, vkey: vkey)
            // The log's own cosignature carries the checkpoint's time.
            let time = try? proof.checkpoint.verified(by: [vkey.for(.cosignatureV1)]).first?.time
            let parent = leaf.parentHash.map { ", derived from \(Hex.encode($0))" } ?? ""
            return Verdict(
                text: """
                    AUTHENTICATED (offline, from \(path)): \(Hex.encode(leaf.imageHash))
                      leaf \(proof.index), captured \(date(leaf.timestamp)), modification level \(leaf.modificationLevel)\(parent)
                      inclusion proof (\(proof.inclusionProof.count) hashes) leads to the root of \(checkpoint.origin)'s checkpoint of \(checkpoint.treeSize) leaves\(time.map { " signed \(date($0))" } ?? "")
                    """, code: 0)
        } catch {
            return Verdict(text: "INVALID PROOF: \(error) — do not trust it", code: 2)
        }
    }
}
