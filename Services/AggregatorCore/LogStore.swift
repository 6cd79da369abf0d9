import Foundation
import HallmarkCrypto
import HallmarkMessages
import HallmarkPostgres

/// Reads of the transparency log's tables (``AggregatorMigrations``): leaves, stored
/// perfect-subtree nodes (in blocks, `LogStore+NodeBlocks.swift`), checkpoints; and the proofs
/// built from them.
package struct LogStore: Sendable {
    /// The aggregator's schema.
    package let schema: String

    package init(schema: String) {
        self.schema = schema
    }

    /// A logged leaf, and what its submission said beside it.
    package struct Leaf: Sendable, Hashable {
        package let index: Int64
        package let leaf: BirthmarkLogLeaf
        package let attribution: Attribution
    }

    /// The leaves for these image hashes (32 bytes each), by hash; absent hashes are not logged.
    package func leaves(_ hashes: [Data], on connection: PostgresConnection) async throws -> [Data: Leaf] {
        guard !hashes.isEmpty else { return [:] }
        let rows = try await connection.query(
            """
            SELECT leaf_index, image_hash, captured_at, modification_level, parent_hash, gps_hash, owner_hash
            FROM \(unescaped: schema).leaves WHERE image_hash = ANY(\(PostgresArray(hashes)))
            """)
        var out: [Data: Leaf] = [:]
        for (index, hash, captured, level, parent, gps, owner) in try rows.decode(
            (Int64, Data, Int64, Int16, Data?, Data?, Data?).self)
        {
            let leaf = try BirthmarkLogLeaf(
                imageHash: hash, timestamp: UInt64(captured), modificationLevel: UInt8(level),
                parentHash: parent)
            out[hash] = Leaf(index: index, leaf: leaf, attribution: Attribution(gpsHash: gps, ownerHash: owner))
        }
        return out
    }

    /// The latest checkpoint, or nil for an empty log; its note carries the witnesses'
    /// cosignatures kept so far.
    package func latestCheckpoint(on connection: PostgresConnection) async throws -> SignedCheckpoint? {
        let rows = try await connection.query("\(selectCheckpoints()) ORDER BY tree_size DESC LIMIT 1")
        return try Self.checkpoints(rows).first
    }

    /// The checkpoint of exactly `size` leaves, if the log made one; with `cosigned`, its note
    /// carries the witnesses' cosignatures kept so far, else it is as the log signed it.
    package func checkpoint(
        size: Int64, cosigned: Bool = true, on connection: PostgresConnection
    ) async throws
        -> SignedCheckpoint?
    {
        let rows = try await connection.query("\(selectCheckpoints(cosigned: cosigned)) WHERE tree_size = \(size)")
        return try Self.checkpoints(rows).first
    }

    /// The checkpoints as ``checkpoints(_:)`` decodes them, each note followed by the
    /// witnesses' cosignature lines kept for its size (with `cosigned`), or as the log signed it.
    private func selectCheckpoints(cosigned: Bool = true) -> PostgresQuery {
        let cosignatures: PostgresQuery =
            cosigned
            ? """
             || coalesce((SELECT string_agg(w.lines, '' ORDER BY w.witness) FROM \(unescaped: schema).cosignatures w
                          WHERE w.tree_size = c.tree_size), '')
            """
            : ""
        return """
            SELECT tree_size, root_hash, signed_at, signature, key_id, note\(cosignatures)
            FROM \(unescaped: schema).checkpoints c
            """
    }

    private static func checkpoints(_ rows: PostgresRows) throws -> [SignedCheckpoint] {
        try rows.decode((Int64, Data, Int64, Data, String, String?).self).map { size, root, at, signature, keyID, note in
            SignedCheckpoint(
                treeSize: UInt64(size), rootHash: Hex.encode(root), timestamp: UInt64(at),
                signature: Base64.encode(signature), keyID: keyID, note: note)
        }
    }

    /// Runs a proof builder over stored nodes: once to learn which nodes it reads, then, after
    /// one query for them, for real.
    func withNodes<T>(on connection: PostgresConnection, _ build: @escaping (MerkleTree.NodeLookup) throws -> T) async throws -> T
    {
        try await withNodes(on: connection, [build])[0]
    }

    /// The same for many builders (a batch's proofs) with one query for all their nodes.
    func withNodes<T>(on connection: PostgresConnection, _ builders: [(MerkleTree.NodeLookup) throws -> T]) async throws -> [T] {
        var wanted = Set<NodePosition>()
        let placeholder = Data(count: 32)
        for build in builders {
            _ = try build { level, index in
                wanted.insert(NodePosition(level: level, index: index))
                return placeholder
            }
        }
        let found = try await nodes(wanted, on: connection)
        return try builders.map { build in
            try build { level, index in
                guard let hash = found[NodePosition(level: level, index: index)] else {
                    throw LogStoreError(detail: "node (\(level), \(index)) is missing")
                }
                return hash
            }
        }
    }

    /// Inclusion proofs of many (leaf index, tree size) pairs, with one query.
    package func inclusionProofs(
        _ pairs: [(index: Int64, size: Int64)], on connection: PostgresConnection
    ) async throws -> [[Data]] {
        try await withNodes(
            on: connection,
            pairs.map { pair in
                { try MerkleTree.inclusionProof(leafIndex: Int(pair.index), treeSize: Int(pair.size), node: $0) }
            })
    }

    /// The consistency proof from `old` leaves to `new` leaves.
    package func consistencyProof(old: Int64, new: Int64, on connection: PostgresConnection) async throws -> [Data] {
        try await withNodes(on: connection) { try MerkleTree.consistencyProof(oldSize: Int(old), treeSize: Int(new), node: $0) }
    }

    /// The frontier of the first `size` leaves, rebuilt from stored nodes.
    func frontier(size: Int64, on connection: PostgresConnection) async throws -> MerkleFrontier {
        var positions: [NodePosition] = []
        var start = 0
        for level in stride(from: 62, through: 0, by: -1) where Int(size) & (1 << level) != 0 {
            positions.append(NodePosition(level: level, index: start >> level))
            start += 1 << level
        }
        let found = try await nodes(Set(positions), on: connection)
        let subtrees = try positions.map { position in
            guard let hash = found[position] else { throw LogStoreError(detail: "frontier node missing") }
            return hash
        }
        return try MerkleFrontier(size: Int(size), subtrees: subtrees)
    }
}

/// A stored node's place: its level and its index among that level's nodes.
struct NodePosition: Hashable, Sendable {
    let level: Int
    let index: Int
}

/// The log's tables disagree with themselves (a node a proof needs is missing).
struct LogStoreError: Error, CustomStringConvertible {
    let detail: String
    var description: String { "transparency log inconsistent: \(detail)" }
}
