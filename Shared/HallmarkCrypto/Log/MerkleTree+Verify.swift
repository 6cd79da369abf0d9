import Foundation

extension MerkleTree {
    /// Verifies an audit path (RFC 9162 §2.1.3.2).
    public static func verifyInclusion(
        leafHash: Data, leafIndex: Int, treeSize: Int, proof: [Data],
        root: Data
    ) -> Bool {
        guard leafIndex >= 0, leafIndex < treeSize, proof.allSatisfy({ $0.count == 32 }) else { return false }
        var fn = leafIndex, sn = treeSize - 1
        var r = leafHash
        for p in proof {
            guard sn != 0 else { return false }
            if fn & 1 == 1 || fn == sn {
                r = nodeHash(p, r)
                while fn & 1 == 0 && fn != 0 { fn >>= 1; sn >>= 1 }
            } else {
                r = nodeHash(r, p)
            }
            fn >>= 1; sn >>= 1
        }
        return sn == 0 && ConstantTime.equal(r, root)
    }

    /// Verifies a consistency proof (RFC 9162 §2.1.4.2). An old size of 0 is consistent
    /// with anything given an empty proof; equal sizes need an empty proof and equal roots.
    public static func verifyConsistency(
        oldSize: Int, newSize: Int, oldRoot: Data, newRoot: Data,
        proof: [Data]
    ) -> Bool {
        guard oldSize >= 0, oldSize <= newSize, proof.allSatisfy({ $0.count == 32 }) else { return false }
        if oldSize == 0 { return proof.isEmpty }
        if oldSize == newSize { return proof.isEmpty && ConstantTime.equal(oldRoot, newRoot) }
        var path = proof
        if oldSize & (oldSize - 1) == 0 { path.insert(oldRoot, at: 0) }
        guard !path.isEmpty else { return false }
        var fn = oldSize - 1, sn = newSize - 1
        while fn & 1 == 1 { fn >>= 1; sn >>= 1 }
        var fr = path[0], sr = path[0]
        for c in path.dropFirst() {
            guard sn != 0 else { return false }
            if fn & 1 == 1 || fn == sn {
                fr = nodeHash(c, fr)
                sr = nodeHash(c, sr)
                while fn & 1 == 0 && fn != 0 { fn >>= 1; sn >>= 1 }
            } else {
                sr = nodeHash(sr, c)
            }
            fn >>= 1; sn >>= 1
        }
        return sn == 0 && ConstantTime.equal(fr, oldRoot) && ConstantTime.equal(sr, newRoot)
    }
}
