import Foundation

/// The right edge of an append-only RFC 6962 tree: the roots of its perfect subtrees,
/// largest first (one per set bit of `size`). Appending and computing the root take
/// O(log n) hashes and memory, so a log can keep its head without holding every leaf.
public struct MerkleFrontier: Sendable, Hashable {
    /// Number of leaves appended.
    public private(set) var size: Int = 0
    /// Perfect-subtree roots, largest first.
    public private(set) var subtrees: [Data] = []

    /// An empty tree.
    public init() {}

    /// Restores a frontier; `invalidArgument` unless there is one 32-byte hash per set bit of `size`.
    public init(size: Int, subtrees: [Data]) throws(HallmarkCryptoError) {
        guard size >= 0, size.nonzeroBitCount == subtrees.count, subtrees.allSatisfy({ $0.count == 32 }) else {
            throw HallmarkCryptoError(.invalidArgument, "frontier does not match its size")
        }
        self.size = size
        self.subtrees = subtrees
    }

    /// Appends a leaf hash (`MerkleTree.leafHash` of the leaf) and returns the perfect
    /// subtrees this completes, smallest first: the leaf itself at level 0, then every node
    /// whose right edge it closes. A log that stores these can answer proofs through
    /// `MerkleTree.inclusionProof(leafIndex:treeSize:node:)` in O(log² n) lookups.
    @discardableResult
    public mutating func append(leafHash: Data) -> [MerkleTree.Node] {
        var hash = leafHash
        var completed = [MerkleTree.Node(level: 0, index: size, hash: hash)]
        var s = size
        var level = 0
        while s & 1 == 1 {
            hash = MerkleTree.nodeHash(subtrees.removeLast(), hash)
            s >>= 1
            level += 1
            completed.append(MerkleTree.Node(level: level, index: s, hash: hash))
        }
        subtrees.append(hash)
        size += 1
        return completed
    }

    /// The current tree head.
    public var root: Data {
        guard var r = subtrees.last else { return MerkleTree.emptyRoot }
        for h in subtrees.dropLast().reversed() { r = MerkleTree.nodeHash(h, r) }
        return r
    }
}
