import Foundation
import HallmarkCrypto
import HallmarkPostgres

/// The tree's nodes in blocks (`node_blocks`, version 8): block `b` of level `h` holds the
/// hashes of nodes `b·64 ..< b·64 + n` of that level, 32 bytes each, in index order. A row per
/// node cost two rows a leaf (the leaf hash and, on average, one node above it); a block is a
/// row per 64 nodes, and a batch writes each block it touches once, appending to the last one.
/// Blocks of level 8·L, four to a tile, are the C2SP hash tiles of level L. Every level is
/// kept, not only 8·L as tlog-tiles serves them, so a proof reads its nodes and hashes nothing.
///
/// A block stays under 2 kB and in its row (never TOAST): rewriting the block a batch ends in
/// copies at most 2 kB per level, and a proof's node is a slice of one row.
extension LogStore {
    /// Nodes per block: 64 (2,048 bytes), so four blocks make a 256-hash C2SP tile.
    package static let blockWidth = 64

    /// Stores the nodes a batch completed (``MerkleFrontier/append(leafHash:)`` in leaf order):
    /// one statement, a row per block it touches. Each level's nodes must continue that level's
    /// stored ones without a gap or an overlap, which the statement checks from the lengths it
    /// leaves; otherwise it throws and the batch's transaction rolls back.
    func storeNodes(_ nodes: [MerkleTree.Node], on connection: PostgresConnection) async throws {
        guard !nodes.isEmpty else { return }
        // Each block's first new node's place in it, and the new hashes.
        var blocks: [NodePosition: (first: Int, hashes: Data)] = [:]
        var order: [NodePosition] = []
        for node in nodes {
            let key = NodePosition(level: node.level, index: node.index / Self.blockWidth)
            if let block = blocks[key] {
                guard node.index % Self.blockWidth == block.first + block.hashes.count / 32 else {
                    throw LogStoreError(detail: "node (\(node.level), \(node.index)) out of order in its batch")
                }
                blocks[key]!.hashes.append(node.hash)
            } else {
                blocks[key] = (node.index % Self.blockWidth, node.hash)
                order.append(key)
            }
        }
        let rows = try await connection.query(
            """
            INSERT INTO \(unescaped: schema).node_blocks AS b (level, block, hashes)
            SELECT * FROM unnest(\(PostgresArray(order.map { Int64($0.level) })), \(PostgresArray(order.map { Int64($0.index) })),
                                 \(PostgresArray(order.map { blocks[$0]!.hashes })))
            ON CONFLICT (level, block) DO UPDATE SET hashes = b.hashes || EXCLUDED.hashes
            RETURNING level, block, length(hashes)
            """)
        for (level, block, length) in try rows.decode((Int64, Int64, Int32).self) {
            let key = NodePosition(level: Int(level), index: Int(block))
            guard let written = blocks[key], Int(length) == 32 * written.first + written.hashes.count else {
                throw LogStoreError(detail: "nodes of level \(level) do not continue its stored ones")
            }
        }
    }

    /// The stored nodes at these (level, index) positions, each a 32-byte slice of its block.
    func nodes(_ positions: Set<NodePosition>, on connection: PostgresConnection) async throws -> [NodePosition: Data] {
        guard !positions.isEmpty else { return [:] }
        let list = Array(positions)
        let rows = try await connection.query(
            """
            SELECT p.level, p.idx, substr(b.hashes, 32 * (p.idx % \(Int64(Self.blockWidth)))::int4 + 1, 32)
            FROM unnest(\(PostgresArray(list.map { Int64($0.level) })), \(PostgresArray(list.map { Int64($0.index) })))
                AS p(level, idx)
            JOIN \(unescaped: schema).node_blocks b ON b.level = p.level AND b.block = p.idx / \(Int64(Self.blockWidth))
            """)
        var out: [NodePosition: Data] = [:]
        for (level, index, hash) in try rows.decode((Int64, Int64, Data).self) where hash.count == 32 {
            out[NodePosition(level: Int(level), index: Int(index))] = hash
        }
        return out
    }

    /// The hashes of level `level`'s nodes `first ..< first + count`, concatenated, or nil when
    /// the log does not hold them all yet.
    func nodeRange(level: Int, first: Int64, count: Int, on connection: PostgresConnection) async throws -> Data? {
        let width = Int64(Self.blockWidth)
        let rows = try await connection.query(
            """
            SELECT block, hashes FROM \(unescaped: schema).node_blocks
            WHERE level = \(Int64(level)) AND block >= \(first / width) AND block <= \((first + Int64(count) - 1) / width)
            ORDER BY block
            """)
        var all = Data()
        for (block, hashes) in try rows.decode((Int64, Data).self) {
            // Every block but the last is full, so each starts where the one before ended (a
            // missing block leaves the next one short of its place).
            guard all.count == Int(block - first / width) * 32 * Self.blockWidth else { return nil }
            all.append(hashes)
        }
        let start = Int(first % width) * 32
        guard all.count >= start + 32 * count else { return nil }
        return all.subdata(in: start..<start + 32 * count)
    }
}
