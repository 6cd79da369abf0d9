import Foundation
import HallmarkCrypto

extension FuzzTarget {
    /// RFC 6962 proofs, differentially: a proof built for (size, index) or (old, new) verifies,
    /// a mutated one does not; proofs from stored nodes equal proofs from leaves; and a
    /// verifier fed raw bytes as a proof never traps.
    static let merkle = FuzzTarget(
        name: "merkle",
        summary: "RFC 6962 inclusion and consistency proofs: built ones verify, mutated ones fail, raw bytes never trap",
        run: MerkleDifferential.run, seeds: MerkleDifferential.seeds, dictionary: [])
}

enum MerkleDifferential {
    /// Trees up to this many leaves: every shape of proof appears within it, at depths 0 to 6
    /// (perfect trees of 1 to 32 leaves, ragged ones, and a one-leaf right edge at 3, 5, 9, 17
    /// and 33). The differential work grows with the size, so larger trees only cost executions.
    static let maxLeaves = 33

    static func run(_ bytes: [UInt8]) throws(FuzzFinding) {
        var input = FuzzBytes(bytes)
        let size = 1 + Int(input.u16()) % maxLeaves
        let index = Int(input.u16()) % size
        let oldSize = 1 + Int(input.u16()) % size
        let leaves = (0..<size).map {
            MerkleTree.leafHash(Data([UInt8(truncatingIfNeeded: $0), UInt8($0 >> 8), input.byte(at: $0)]))
        }

        // The frontier, the nodes it stores and the leaf-list recursion agree.
        var frontier = MerkleFrontier()
        var stored: [Int: [Int: Data]] = [:]
        var oldRoot = MerkleTree.emptyRoot
        for leaf in leaves {
            for node in frontier.append(leafHash: leaf) { stored[node.level, default: [:]][node.index] = node.hash }
            if frontier.size == oldSize { oldRoot = frontier.root }
        }
        let root = MerkleTree.root(leafHashes: leaves)
        try require(frontier.root == root, "the frontier's root differs from the recursion's")
        try require(MerkleTree.root(leafHashes: Array(leaves.prefix(oldSize))) == oldRoot, "an old root differs")
        let lookup: MerkleTree.NodeLookup = { level, index in
            guard let hash = stored[level]?[index] else { throw FuzzFinding("a proof asked for a node never stored") }
            return hash
        }

        let proof: [Data], fromNodes: [Data], consistency: [Data], consistencyFromNodes: [Data]
        do {
            proof = try MerkleTree.inclusionProof(leafIndex: index, leafHashes: leaves)
            fromNodes = try MerkleTree.inclusionProof(leafIndex: index, treeSize: size, node: lookup)
            consistency = try MerkleTree.consistencyProof(oldSize: oldSize, leafHashes: leaves)
            consistencyFromNodes = try MerkleTree.consistencyProof(oldSize: oldSize, treeSize: size, node: lookup)
            try require(try MerkleTree.root(treeSize: size, node: lookup) == root, "the stored nodes give another root")
        } catch let finding as FuzzFinding {
            throw finding
        } catch {
            throw FuzzFinding("a proof inside the tree could not be built")
        }
        try require(proof == fromNodes, "inclusion proofs from nodes and from leaves differ")
        try require(consistency == consistencyFromNodes, "consistency proofs from nodes and from leaves differ")
        try require(
            MerkleTree.verifyInclusion(leafHash: leaves[index], leafIndex: index, treeSize: size, proof: proof, root: root),
            "a built inclusion proof does not verify")
        try require(
            MerkleTree.verifyConsistency(oldSize: oldSize, newSize: size, oldRoot: oldRoot, newRoot: root, proof: consistency),
            "a built consistency proof does not verify")

        // One mutation, chosen by the input, must make each proof fail.
        let choice = input.byte(), at = Int(input.byte()), bit = input.byte() & 7
        if let bad = mutated(proof, choice: choice, at: at, bit: bit) {
            try require(
                !MerkleTree.verifyInclusion(leafHash: leaves[index], leafIndex: index, treeSize: size, proof: bad, root: root),
                "a mutated inclusion proof verifies")
        }
        if let bad = mutated(consistency, choice: choice, at: at, bit: bit) {
            try require(
                !MerkleTree.verifyConsistency(oldSize: oldSize, newSize: size, oldRoot: oldRoot, newRoot: root, proof: bad),
                "a mutated consistency proof verifies")
        }
        let other = (index + 1 + at) % size
        if other != index {
            try require(
                !MerkleTree.verifyInclusion(leafHash: leaves[index], leafIndex: other, treeSize: size, proof: proof, root: root),
                "an inclusion proof verifies at another index")
        }
        try require(
            !MerkleTree.verifyInclusion(
                leafHash: leaves[index], leafIndex: index + size, treeSize: size, proof: proof, root: root),
            "an index beyond the tree verifies")

        // The rest of the input, as a third party's proof: any sizes, any bytes, no trap.
        let sizes = (Int(truncatingIfNeeded: input.u64()), Int(truncatingIfNeeded: input.u64()))
        let raw = input.remaining.chunks(of: 32)
        _ = MerkleTree.verifyInclusion(leafHash: leaves[0], leafIndex: sizes.0, treeSize: sizes.1, proof: raw, root: root)
        _ = MerkleTree.verifyConsistency(oldSize: sizes.0, newSize: sizes.1, oldRoot: oldRoot, newRoot: root, proof: raw)
    }

    /// `proof` with one element's bit flipped, an element dropped or one added; nil when the
    /// proof is empty and the choice needs an element.
    static func mutated(_ proof: [Data], choice: UInt8, at: Int, bit: UInt8) -> [Data]? {
        switch choice % 3 {
        case 0:
            guard !proof.isEmpty else { return nil }
            var p = proof
            let i = at % p.count
            p[i][p[i].startIndex + at % 32] ^= 1 << bit
            return p
        case 1:
            guard !proof.isEmpty else { return nil }
            var p = proof
            p.remove(at: at % p.count)
            return p
        default:
            var p = proof
            p.insert(MerkleTree.leafHash(Data([choice, bit])), at: at % (p.count + 1))
            return p
        }
    }

    static func seeds() throws -> [[UInt8]] {
        [
            [0, 7, 0, 3, 0, 4, 0, 1, 2], [1, 0, 0, 255, 0, 17, 2, 9, 5], [0, 1, 0, 0, 0, 1, 1, 0, 0],
            [0, 63, 0, 31, 0, 32, 2, 40, 7] + Array(repeating: 0xAB, count: 96),
        ]
    }
}
