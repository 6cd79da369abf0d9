import Foundation

extension MerkleTree {
    /// A perfect subtree: the root of leaves `index·2^level ..< (index+1)·2^level`.
    public struct Node: Sendable, Hashable {
        /// Height (0 = a leaf hash).
        public let level: Int
        /// Position among the nodes of that level.
        public let index: Int
        /// The subtree root.
        public let hash: Data

        /// Creates a node.
        public init(level: Int, index: Int, hash: Data) {
            self.level = level
            self.index = index
            self.hash = hash
        }
    }

    /// Looks up a stored perfect-subtree root by (level, index).
    public typealias NodeLookup = (_ level: Int, _ index: Int) throws -> Data

    /// Tree head of the first `treeSize` leaves from stored perfect subtrees.
    public static func root(treeSize: Int, node: NodeLookup) rethrows -> Data {
        try rangeRoot(start: 0, count: treeSize, node: node)
    }

    /// The audit path from stored perfect subtrees (O(log² n) lookups); equals
    /// `inclusionProof(leafIndex:leafHashes:)`.
    public static func inclusionProof(leafIndex: Int, treeSize: Int, node: NodeLookup) throws -> [Data] {
        guard leafIndex >= 0, leafIndex < treeSize else {
            throw HallmarkCryptoError(.invalidArgument, "leaf index outside the tree")
        }
        return try path(leafIndex, start: 0, count: treeSize, node: node)
    }

    /// The consistency proof from stored perfect subtrees; equals
    /// `consistencyProof(oldSize:leafHashes:)`.
    public static func consistencyProof(oldSize: Int, treeSize: Int, node: NodeLookup) throws -> [Data] {
        guard oldSize >= 0, oldSize <= treeSize else {
            throw HallmarkCryptoError(.invalidArgument, "old size outside the tree")
        }
        guard oldSize > 0 else { return [] }
        return try subproof(oldSize, start: 0, count: treeSize, complete: true, node: node)
    }

    /// MTH of leaves `start ..< start+count`. In RFC 6962's recursion every range starts at a
    /// multiple of its left part's size, so it splits into O(log n) stored perfect subtrees.
    static func rangeRoot(start: Int, count: Int, node: NodeLookup) rethrows -> Data {
        if count == 0 { return emptyRoot }
        if count & (count - 1) == 0 { return try node(count.trailingZeroBitCount, start / count) }
        let k = split(count)
        return nodeHash(
            try node(k.trailingZeroBitCount, start / k),
            try rangeRoot(start: start + k, count: count - k, node: node))
    }

    private static func path(_ m: Int, start: Int, count: Int, node: NodeLookup) throws -> [Data] {
        guard count > 1 else { return [] }
        let k = split(count)
        if m < k {
            return try path(m, start: start, count: k, node: node)
                + [rangeRoot(start: start + k, count: count - k, node: node)]
        }
        return try path(m - k, start: start + k, count: count - k, node: node)
            + [rangeRoot(start: start, count: k, node: node)]
    }

    private static func subproof(
        _ m: Int, start: Int, count: Int, complete: Bool,
        node: NodeLookup
    ) throws -> [Data] {
        if m == count { return complete ? [] : [try rangeRoot(start: start, count: count, node: node)] }
        let k = split(count)
        if m <= k {
            return try subproof(m, start: start, count: k, complete: complete, node: node)
                + [rangeRoot(start: start + k, count: count - k, node: node)]
        }
        return try subproof(m - k, start: start + k, count: count - k, complete: false, node: node)
            + [rangeRoot(start: start, count: k, node: node)]
    }
}
