import Foundation
import HallmarkCrypto
import HallmarkPostgres

extension LogStore {
    /// A C2SP tlog-tiles resource read from the stored tree: a hash tile (the stored nodes at
    /// height 8·L, indices N·256 ..< N·256+W, from their blocks) or an entry bundle (each leaf as
    /// `u16be(73) ‖ leaf`). Nil when the log does not hold it yet (a tile beyond the tree).
    package func tile(_ tile: TileCoordinate, on connection: PostgresConnection) async throws -> Data? {
        let first = Int64(tile.index) * Int64(TileCoordinate.width)
        let end = first + Int64(tile.width)
        var out = Data()
        if let level = tile.level {
            // The level-8·L nodes, four blocks to a tile.
            guard let hashes = try await nodeRange(level: 8 * level, first: first, count: tile.width, on: connection) else {
                return nil
            }
            out = hashes
        } else {
            let rows = try await connection.query(
                """
                SELECT image_hash, captured_at, modification_level, parent_hash FROM \(unescaped: schema).leaves
                WHERE leaf_index >= \(first) AND leaf_index < \(end) ORDER BY leaf_index
                """)
            let leaves = try rows.decode((Data, Int64, Int16, Data?).self)
            guard leaves.count == tile.width else { return nil }
            out.reserveCapacity(75 * tile.width)
            for (hash, captured, level, parent) in leaves {
                let leaf = try BirthmarkLogLeaf(
                    imageHash: hash, timestamp: UInt64(captured), modificationLevel: UInt8(level), parentHash: parent)
                let bytes = leaf.bytes
                out.append(UInt8(bytes.count >> 8))
                out.append(UInt8(bytes.count & 0xff))
                out.append(bytes)
            }
        }
        return out
    }
}
