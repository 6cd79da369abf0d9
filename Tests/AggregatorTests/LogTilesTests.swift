import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime
import HallmarkTestSupport
import Logging
import Testing

@testable import AggregatorCore
@testable import HallmarkCLICore

/// The log as C2SP tlog-tiles, written from a real PostgreSQL by `hallmark aggregator tiles`:
/// every tile equals the tree's hashes computed here from the leaves, full tiles are kept and
/// partial ones replaced as the log grows, and the checkpoint file is the latest signed note.
@Suite("Transparency log tiles", .serialized, .timeLimit(.minutes(6)))
struct LogTilesTests {
    /// A log of `size` random leaves appended through the writer in batches, with the
    /// checkpoint notes of the sizes in `keep`.
    struct Built {
        var pool: PostgresPool
        var schema: String
        var key: CheckpointSigningKey
        var leaves: [Data] = []
        var notes: [UInt64: String] = [:]

        var vkey: NoteVerifierKey {
            try! key.verifierKey(origin: AggregatorConfiguration.Variable.origin.defaultValue)
        }

        mutating func grow(to size: Int, batch: Int = 5_000) async throws {
            let log = try TransparencyLog(schema: schema, key: key, checkpointTopic: "checkpoints", metrics: AggregatorMetrics())
            while leaves.count < size {
                let hashes = (0..<min(batch, size - leaves.count)).map { _ in try! SecureRandom.bytes(32) }
                let items = stride(from: 0, to: hashes.count, by: 100).map { start in
                    TransparencyLog.Item(
                        id: UUID(),
                        entries: hashes[start..<min(start + 100, hashes.count)].map {
                            .init(imageHash: Hex.encode($0), modificationLevel: 0)
                        }, capturedAt: 1_700_000_000, correlationID: MessageID.random().text, replyTopic: "answers",
                        replyKey: nil)
                }
                let position = Int64(leaves.count)
                _ = try await pool.transaction { try await log.append(items, at: position, on: $0) }
                for hash in hashes {
                    leaves.append(try BirthmarkLogLeaf(imageHash: hash, timestamp: 1_700_000_000, modificationLevel: 0).bytes)
                }
                let latest = try await pool.withConnection { try await LogStore(schema: schema).latestCheckpoint(on: $0) }
                notes[UInt64(leaves.count)] = latest?.note
            }
        }
    }

    static func build(_ size: Int) async throws -> Built {
        var logger = Logger(label: "tiles-tests")
        logger.logLevel = .warning
        let pool = PostgresPool(configuration: try PostgresConfiguration.fromEnvironment(), logger: logger)
        let schema = "aggregator_tiles_\(String(UUID().uuidString.prefix(8)).lowercased())"
        try await StageDatabase(pool: pool, schema: schema).migrate(AggregatorMigrations.all(schema: schema), logger: logger)
        var built = Built(pool: pool, schema: schema, key: try CheckpointSigningKey.generate())
        try await built.grow(to: size)
        return built
    }

    /// The tile's bytes computed from the leaves alone (RFC 6962 and C2SP tlog-tiles).
    static func expected(_ tile: TileCoordinate, leaves: [Data]) -> Data {
        let first = Int(tile.index) * TileCoordinate.width
        guard let level = tile.level else {
            return leaves[first..<first + tile.width].reduce(into: Data()) { out, leaf in
                out.append(contentsOf: [UInt8(leaf.count >> 8), UInt8(leaf.count & 0xff)])
                out.append(leaf)
            }
        }
        let span = 1 << (8 * level)
        let hashes = leaves.map(MerkleTree.leafHash)
        return (first..<first + tile.width).reduce(into: Data()) { out, i in
            out.append(MerkleTree.root(leafHashes: Array(hashes[i * span..<(i + 1) * span])))
        }
    }

    @Test func tilesAreTheTreesHashesAndFullTilesAreKept() async throws {
        var log = try await Self.build(700)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tiles-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let tiles = TileDirectory(path: directory)
        let store = LogStore(schema: log.schema)
        let first = try await log.pool.withConnection { try await tiles.write(store, on: $0) }
        #expect(first.treeSize == 700 && first.kept == 0)
        // 700 leaves: 2 full level-0 tiles and one of width 188, the same entry bundles, and a
        // level-1 tile of width 2.
        #expect(
            TileCoordinate.tiles(treeSize: 700).map(\.description).sorted()
                == [
                    "tile/0/000", "tile/0/001", "tile/0/002.p/188", "tile/1/000.p/2", "tile/entries/000",
                    "tile/entries/001", "tile/entries/002.p/188",
                ])
        for tile in TileCoordinate.tiles(treeSize: 700) {
            let bytes = FileManager.default.contents(atPath: directory + "/" + tile.description)
            #expect(bytes == Self.expected(tile, leaves: log.leaves), "\(tile)")
        }
        let checkpoint = try String(contentsOfFile: directory + "/checkpoint", encoding: .utf8)
        #expect(checkpoint == log.notes[700])
        let text = try CheckpointText(parsing: try SignedNote.parse(Array(checkpoint.utf8)).text)
        #expect(text.rootHash == MerkleTree.root(leafHashes: log.leaves.map(MerkleTree.leafHash)))

        // Grown to 1,000: the two full tiles stay; the rest are written for the new size.
        try await log.grow(to: 1_000)
        let second = try await log.pool.withConnection { try await tiles.write(store, on: $0) }
        #expect(second.treeSize == 1_000 && second.kept == 4)
        for tile in TileCoordinate.tiles(treeSize: 1_000) {
            let bytes = FileManager.default.contents(atPath: directory + "/" + tile.description)
            #expect(bytes == Self.expected(tile, leaves: log.leaves), "\(tile)")
        }
        #expect(try String(contentsOfFile: directory + "/checkpoint", encoding: .utf8) == log.notes[1_000])
        // A tile beyond the tree is not served.
        let beyond = try await log.pool.withConnection { try await store.tile(TileCoordinate(level: 0, index: 3), on: $0) }
        #expect(beyond == nil)
        _ = try? await log.pool.execute("DROP SCHEMA IF EXISTS \(unescaped: log.schema) CASCADE")
        log.pool.close()
    }
}
