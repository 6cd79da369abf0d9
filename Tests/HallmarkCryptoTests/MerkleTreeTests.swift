import Foundation
import HallmarkTestSupport
import Testing
@testable import HallmarkCrypto

@Suite(.timeLimit(.minutes(2))) struct MerkleTreeTests {
    /// RFC 6962 test leaves and heads.
    static let rfcLeaves = RFC6962Vectors.leaves
    static let rfcRoots = RFC6962Vectors.roots

    /// Independent reference: the recursive MTH definition of RFC 6962 §2.1, on raw leaves.
    static func referenceRoot(_ leaves: ArraySlice<Data>) -> Data {
        if leaves.isEmpty { return SHA256Hash.digest(Data()) }
        if leaves.count == 1 { return SHA256Hash.digest(Data([0]) + leaves.first!) }
        var k = 1
        while k * 2 < leaves.count { k *= 2 }
        let mid = leaves.startIndex + k
        return SHA256Hash.digest(Data([1]) + referenceRoot(leaves[..<mid]) + referenceRoot(leaves[mid...]))
    }

    static let leaves64: [Data] = (0..<64).map { Data("leaf-\($0)".utf8) }

    @Test func rfcRootsForSizes1To8() {
        for n in 1...8 {
            let hashes = Self.rfcLeaves.prefix(n).map(MerkleTree.leafHash)
            #expect(Hex.encode(MerkleTree.root(leafHashes: hashes)) == Self.rfcRoots[n - 1])
            #expect(Hex.encode(Self.referenceRoot(Self.rfcLeaves.prefix(n))) == Self.rfcRoots[n - 1])
        }
        #expect(MerkleTree.root(leafHashes: []) == hex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"))
    }

    @Test func inclusionProofsForEveryLeafUpTo64() throws {
        let hashes = Self.leaves64.map(MerkleTree.leafHash)
        for size in 1...64 {
            let tree = Array(hashes.prefix(size))
            let root = Self.referenceRoot(Self.leaves64.prefix(size))
            #expect(MerkleTree.root(leafHashes: tree) == root)
            for index in 0..<size {
                let proof = try MerkleTree.inclusionProof(leafIndex: index, leafHashes: tree)
                #expect(
                    MerkleTree.verifyInclusion(
                        leafHash: tree[index], leafIndex: index, treeSize: size,
                        proof: proof, root: root))
                // Wrong index, wrong size, wrong leaf and a tampered path all fail.
                if size > 1 {
                    #expect(
                        !MerkleTree.verifyInclusion(
                            leafHash: tree[index], leafIndex: (index + 1) % size,
                            treeSize: size, proof: proof, root: root))
                    #expect(
                        !MerkleTree.verifyInclusion(
                            leafHash: tree[(index + 1) % size], leafIndex: index,
                            treeSize: size, proof: proof, root: root))
                    var bad = proof
                    bad[0] = flipped(bad[0], at: 31)
                    #expect(
                        !MerkleTree.verifyInclusion(
                            leafHash: tree[index], leafIndex: index, treeSize: size,
                            proof: bad, root: root))
                    #expect(
                        !MerkleTree.verifyInclusion(
                            leafHash: tree[index], leafIndex: index, treeSize: size,
                            proof: proof + [root], root: root))
                }
            }
        }
    }

    @Test func consistencyProofsForAllSizesUpTo64() throws {
        let hashes = Self.leaves64.map(MerkleTree.leafHash)
        let roots = (0...64).map { Self.referenceRoot(Self.leaves64.prefix($0)) }
        for newSize in 0...64 {
            let tree = Array(hashes.prefix(newSize))
            for oldSize in 0...newSize {
                let proof = try MerkleTree.consistencyProof(oldSize: oldSize, leafHashes: tree)
                #expect(
                    MerkleTree.verifyConsistency(
                        oldSize: oldSize, newSize: newSize, oldRoot: roots[oldSize],
                        newRoot: roots[newSize], proof: proof),
                    "old \(oldSize) new \(newSize)")
                if oldSize > 0 && oldSize < newSize {
                    #expect(
                        !MerkleTree.verifyConsistency(
                            oldSize: oldSize, newSize: newSize,
                            oldRoot: flipped(roots[oldSize], at: 0),
                            newRoot: roots[newSize], proof: proof))
                    #expect(
                        !MerkleTree.verifyConsistency(
                            oldSize: oldSize, newSize: newSize, oldRoot: roots[oldSize],
                            newRoot: roots[newSize - 1], proof: proof))
                    if !proof.isEmpty {
                        var bad = proof
                        bad[bad.count - 1] = flipped(bad[bad.count - 1], at: 5)
                        #expect(
                            !MerkleTree.verifyConsistency(
                                oldSize: oldSize, newSize: newSize,
                                oldRoot: roots[oldSize], newRoot: roots[newSize], proof: bad))
                    }
                }
            }
        }
    }

    @Test func frontierMatchesFullRecomputation() throws {
        var frontier = MerkleFrontier()
        let hashes = Self.leaves64.map(MerkleTree.leafHash)
        for (i, h) in hashes.enumerated() {
            frontier.append(leafHash: h)
            #expect(frontier.size == i + 1)
            #expect(frontier.root == MerkleTree.root(leafHashes: Array(hashes.prefix(i + 1))))
        }
        let restored = try MerkleFrontier(size: frontier.size, subtrees: frontier.subtrees)
        #expect(restored == frontier)
        expectCode(.invalidArgument) { _ = try MerkleFrontier(size: 3, subtrees: [Data(count: 32)]) }
    }

    @Test func badProofArguments() {
        expectCode(.invalidArgument) { _ = try MerkleTree.inclusionProof(leafIndex: 3, leafHashes: [Data(count: 32)]) }
        expectCode(.invalidArgument) { _ = try MerkleTree.consistencyProof(oldSize: 2, leafHashes: [Data(count: 32)]) }
    }

    @Test func logLeafAndSignedCheckpoint() throws {
        let leaf = try BirthmarkLogLeaf(
            imageHash: Data(repeating: 0xaa, count: 32), timestamp: 0x0102030405060708,
            modificationLevel: 2)
        #expect(leaf.bytes.count == 73)
        #expect(leaf.bytes[32..<40] == hex("0102030405060708"))
        #expect(leaf.bytes[40] == 2)
        #expect(leaf.bytes.suffix(32) == Data(count: 32))
        expectCode(.invalidLength) { _ = try BirthmarkLogLeaf(imageHash: Data(count: 31), timestamp: 0, modificationLevel: 0) }

        let seed = Data(repeating: 7, count: 32)
        let keys = try Ed25519.keyPair(seed: seed)
        let checkpoint = try LogCheckpoint(treeSize: 8, rootHash: hex(Self.rfcRoots[7]), timestamp: 1_735_689_600)
        #expect(checkpoint.signingBytes.count == 71)
        #expect(checkpoint.signingBytes.prefix(23) == Data("hallmark-checkpoint-v1\n".utf8))
        let signature = try checkpoint.sign(seed: seed)
        #expect(checkpoint.verify(signature: signature, publicKey: keys.publicKey))
        let parsed = try LogCheckpoint.parse(checkpoint.jsonData())
        #expect(parsed == checkpoint)
        #expect(parsed.verify(signature: signature, publicKey: keys.publicKey))
        var moved = checkpoint
        moved.treeSize = 9
        #expect(!moved.verify(signature: signature, publicKey: keys.publicKey))
        for i in [0, 20, 63] {
            #expect(!checkpoint.verify(signature: flipped(signature, at: i), publicKey: keys.publicKey))
        }
        expectCode(.malformedJSON) { _ = try LogCheckpoint.parse(Data(#"{"tree_size":1,"root_hash":"zz","timestamp":1}"#.utf8)) }
        expectCode(.malformedJSON) { _ = try LogCheckpoint.parse(Data(#"{"tree_size":-1,"root_hash":"#.utf8)) }
    }
}

@Suite(.timeLimit(.minutes(2))) struct MerkleNodeStoreTests {
    /// Proofs from stored perfect subtrees (as an aggregator would keep them) equal the
    /// array-based proofs for every size, leaf and old size up to 64.
    @Test func storedNodesGiveTheSameProofs() throws {
        var store: [String: Data] = [:]
        var frontier = MerkleFrontier()
        let hashes = MerkleTreeTests.leaves64.map(MerkleTree.leafHash)
        for size in 1...64 {
            for node in frontier.append(leafHash: hashes[size - 1]) { store["\(node.level)/\(node.index)"] = node.hash }
            let lookup: MerkleTree.NodeLookup = { level, index in
                guard let hash = store["\(level)/\(index)"] else { throw HallmarkCryptoError(.invalidProof, "missing node") }
                return hash
            }
            let tree = Array(hashes.prefix(size))
            #expect(try MerkleTree.root(treeSize: size, node: lookup) == frontier.root)
            for index in 0..<size {
                #expect(
                    try MerkleTree.inclusionProof(leafIndex: index, treeSize: size, node: lookup)
                        == MerkleTree.inclusionProof(leafIndex: index, leafHashes: tree))
            }
            for old in 0...size {
                #expect(
                    try MerkleTree.consistencyProof(oldSize: old, treeSize: size, node: lookup)
                        == MerkleTree.consistencyProof(oldSize: old, leafHashes: tree))
            }
        }
        #expect(store.count == 127)  // 64 leaves + 32 + 16 + 8 + 4 + 2 + 1
    }
}
