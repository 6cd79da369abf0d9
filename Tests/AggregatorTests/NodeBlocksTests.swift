import Foundation
import HallmarkCrypto
import HallmarkPostgres
import Testing

@testable import AggregatorCore

/// The tree's nodes 64 to a row (`node_blocks`) in a real PostgreSQL: batches of every size
/// across block edges give the proofs, frontier and tiles all the leaves give; a batch that
/// does not continue the stored nodes (replayed, or with a gap) is refused; and a database of
/// the row-per-node `nodes` table upgrades to blocks with every proof unchanged.
@Suite("Transparency log node blocks", .serialized, .timeLimit(.minutes(3)))
struct NodeBlocksTests {
    static func leafHashes(_ count: Int) -> [Data] {
        (0..<count).map { _ in MerkleTree.leafHash(try! SecureRandom.bytes(73)) }
    }

    /// Inclusion proofs of every leaf, consistency proofs from every size and the frontier
    /// from storage, each equal to the in-memory computation over `hashes`.
    static func expectProofs(_ store: LogStore, _ hashes: [Data], pool: PostgresPool) async throws {
        let size = hashes.count
        try await pool.withConnection { connection in
            let proofs = try await store.inclusionProofs((0..<size).map { (Int64($0), Int64(size)) }, on: connection)
            #expect(proofs == (try (0..<size).map { try MerkleTree.inclusionProof(leafIndex: $0, leafHashes: hashes) }))
            for old in stride(from: 0, through: size, by: 7) {
                let proof = try await store.consistencyProof(old: Int64(old), new: Int64(size), on: connection)
                #expect(proof == (try MerkleTree.consistencyProof(oldSize: old, leafHashes: hashes)))
            }
            let frontier = try await store.frontier(size: Int64(size), on: connection)
            #expect(frontier.root == MerkleTree.root(leafHashes: hashes))
        }
    }

    @Test func batchesOfEverySizeAcrossBlockEdges() async throws {
        let (pool, schema) = try await TransparencyLogTests.schema()
        let store = LogStore(schema: schema)
        let hashes = Self.leafHashes(300)
        var frontier = MerkleFrontier()
        var start = 0
        for count in [1, 62, 1, 64, 65, 3, 104] {
            let nodes = hashes[start..<start + count].flatMap { frontier.append(leafHash: $0) }
            try await pool.transaction { try await store.storeNodes(nodes, on: $0) }
            start += count
            try await Self.expectProofs(store, Array(hashes.prefix(start)), pool: pool)
        }
        // A row per block: level h has 300 >> h nodes.
        let rows = try await pool.query("SELECT count(*)::int8 FROM \(unescaped: schema).node_blocks").decode(Int64.self)
        let blocks: Int64 = (0...8).map { level in Int64(((300 >> level) + 63) / 64) }.reduce(0, +)
        #expect(rows == [blocks])
        // The C2SP tiles: level 0 full and partial, level 1 (height 8) with its one node.
        let tiles = try await pool.withConnection { connection in
            var out: [Data?] = []
            for (level, index, width) in [(0, 0, 256), (0, 1, 44), (0, 1, 45), (1, 0, 1), (1, 0, 2)] {
                out.append(try await store.tile(TileCoordinate(level: level, index: UInt64(index), width: width), on: connection))
            }
            return out
        }
        let expected: [Data?] = [
            Data(hashes.prefix(256).joined()), Data(hashes[256...].joined()), nil,
            MerkleTree.root(leafHashes: Array(hashes.prefix(256))), nil,
        ]
        #expect(tiles == expected)
        await TransparencyLogTests.drop(pool, schema)
    }

    @Test func nodesThatDoNotContinueTheStoredOnesAreRefused() async throws {
        let (pool, schema) = try await TransparencyLogTests.schema()
        let store = LogStore(schema: schema)
        let hashes = Self.leafHashes(80)
        var frontier = MerkleFrontier()
        let first = hashes.prefix(70).flatMap { frontier.append(leafHash: $0) }
        try await pool.transaction { try await store.storeNodes(first, on: $0) }
        // The same batch again (a writer that lost track of its position): a full block would
        // overflow (the table's check) and a partial one would not end where it should.
        await #expect(throws: (any Error).self) {
            try await pool.transaction { try await store.storeNodes(first, on: $0) }
        }
        var skipping = frontier
        _ = skipping.append(leafHash: hashes[70])
        let gap = hashes[71...].flatMap { skipping.append(leafHash: $0) }
        await #expect(throws: LogStoreError.self) {
            try await pool.transaction { try await store.storeNodes(gap, on: $0) }
        }
        // Neither left a trace; the right continuation is taken.
        try await Self.expectProofs(store, Array(hashes.prefix(70)), pool: pool)
        let rest = hashes[70...].flatMap { frontier.append(leafHash: $0) }
        try await pool.transaction { try await store.storeNodes(rest, on: $0) }
        try await Self.expectProofs(store, hashes, pool: pool)
        await TransparencyLogTests.drop(pool, schema)
    }

    /// A log written a row per node (before version 8) keeps every proof through the upgrade.
    @Test func rowPerNodeLogsUpgradeToBlocks() async throws {
        let (pool, schema, upgrade) = try await TransparencyLogTests.schema(without: 8)
        let hashes = Self.leafHashes(200)
        var frontier = MerkleFrontier()
        let nodes = hashes.flatMap { frontier.append(leafHash: $0) }
        _ = try await pool.execute(
            """
            INSERT INTO \(unescaped: schema).nodes (level, idx, hash)
            SELECT * FROM unnest(\(PostgresArray(nodes.map { Int64($0.level) })), \(PostgresArray(nodes.map { Int64($0.index) })),
                                 \(PostgresArray(nodes.map(\.hash))))
            """)
        try await upgrade()
        let store = LogStore(schema: schema)
        try await Self.expectProofs(store, hashes, pool: pool)
        let left = try await pool.query("SELECT to_regclass(\(schema + ".nodes"))::text").decode(String?.self)
        #expect(left == [nil])
        // The writer goes on from the upgraded blocks.
        let more = Self.leafHashes(30)
        let next = more.flatMap { frontier.append(leafHash: $0) }
        try await pool.transaction { try await store.storeNodes(next, on: $0) }
        try await Self.expectProofs(store, hashes + more, pool: pool)
        await TransparencyLogTests.drop(pool, schema)
    }
}
