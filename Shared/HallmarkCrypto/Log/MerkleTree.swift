import Foundation

/// RFC 6962 Merkle tree hashing and proofs over leaf hashes.
/// Leaf hash `SHA256(0x00 ‖ leaf)`, node hash `SHA256(0x01 ‖ left ‖ right)`, split at the
/// largest power of two below n; the empty tree's root is `SHA256("")`.
public enum MerkleTree {
    /// `SHA256(0x00 ‖ leaf)`.
    public static func leafHash(_ leaf: some DataProtocol) -> Data {
        var bytes = Data([0x00])
        bytes.append(contentsOf: leaf)
        return SHA256Hash.digest(bytes)
    }

    /// `SHA256(0x01 ‖ left ‖ right)`.
    public static func nodeHash(_ left: some DataProtocol, _ right: some DataProtocol) -> Data {
        var bytes = Data(capacity: 65)
        bytes.append(0x01)
        bytes.append(contentsOf: left)
        bytes.append(contentsOf: right)
        return SHA256Hash.digest(bytes)
    }

    /// Root of the empty tree.
    public static let emptyRoot = SHA256Hash.digest(Data())

    /// The tree head MTH of `leafHashes` (O(n) hashes).
    public static func root(leafHashes: [Data]) -> Data {
        var frontier = MerkleFrontier()
        for h in leafHashes { frontier.append(leafHash: h) }
        return frontier.root
    }

    /// Largest power of two strictly below `n` (n ≥ 2).
    static func split(_ n: Int) -> Int {
        var k = 1
        while k << 1 < n { k <<= 1 }
        return k
    }

    /// MTH of a range of leaf hashes.
    static func subtreeRoot(_ hashes: ArraySlice<Data>) -> Data {
        switch hashes.count {
        case 0: return emptyRoot
        case 1: return hashes.first!
        default:
            let k = split(hashes.count)
            let mid = hashes.startIndex + k
            return nodeHash(subtreeRoot(hashes[..<mid]), subtreeRoot(hashes[mid...]))
        }
    }

    /// The RFC 6962 audit path for leaf `leafIndex` in the tree of `leafHashes`.
    public static func inclusionProof(leafIndex: Int, leafHashes: [Data]) throws(HallmarkCryptoError) -> [Data] {
        guard leafIndex >= 0, leafIndex < leafHashes.count else {
            throw HallmarkCryptoError(.invalidArgument, "leaf index outside the tree")
        }
        return path(leafIndex, leafHashes[...])
    }

    private static func path(_ m: Int, _ d: ArraySlice<Data>) -> [Data] {
        guard d.count > 1 else { return [] }
        let k = split(d.count), mid = d.startIndex + k
        if m < k { return path(m, d[..<mid]) + [subtreeRoot(d[mid...])] }
        return path(m - k, d[mid...]) + [subtreeRoot(d[..<mid])]
    }

    /// The RFC 6962 consistency proof from the first `oldSize` leaves to all of them.
    /// Empty when `oldSize` is 0 or equals the tree size.
    public static func consistencyProof(oldSize: Int, leafHashes: [Data]) throws(HallmarkCryptoError) -> [Data] {
        guard oldSize >= 0, oldSize <= leafHashes.count else {
            throw HallmarkCryptoError(.invalidArgument, "old size outside the tree")
        }
        guard oldSize > 0 else { return [] }
        return subproof(oldSize, leafHashes[...], complete: true)
    }

    private static func subproof(_ m: Int, _ d: ArraySlice<Data>, complete: Bool) -> [Data] {
        if m == d.count { return complete ? [] : [subtreeRoot(d)] }
        let k = split(d.count), mid = d.startIndex + k
        if m <= k { return subproof(m, d[..<mid], complete: complete) + [subtreeRoot(d[mid...])] }
        return subproof(m - k, d[mid...], complete: false) + [subtreeRoot(d[..<mid])]
    }
}
