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
            try! key.verifierKey(origin: AggregatorConfiguration.declared(\.origin))
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

        // Grown to 1,000: only the tiles the tree of 700 did not have are written (the third
        // level-0 tile and bundle are now full, a fourth partial, and a level-1 tile of width 3).
        try await log.grow(to: 1_000)
        let second = try await log.pool.withConnection { try await tiles.write(store, on: $0) }
        #expect(second == TileDirectory.Written(treeSize: 1_000, written: 5, kept: 0))
        for tile in TileCoordinate.tiles(treeSize: 1_000) {
            let bytes = FileManager.default.contents(atPath: directory + "/" + tile.description)
            #expect(bytes == Self.expected(tile, leaves: log.leaves), "\(tile)")
        }
        #expect(try String(contentsOfFile: directory + "/checkpoint", encoding: .utf8) == log.notes[1_000])
        // Without its checkpoint file, every tile is looked for, and those present are kept.
        try FileManager.default.removeItem(atPath: directory + "/checkpoint")
        let again = try await log.pool.withConnection { try await tiles.write(store, on: $0) }
        #expect(again == TileDirectory.Written(treeSize: 1_000, written: 0, kept: 9))
        #expect(try String(contentsOfFile: directory + "/checkpoint", encoding: .utf8) == log.notes[1_000])
        // A tile beyond the tree is not served.
        let beyond = try await log.pool.withConnection { try await store.tile(TileCoordinate(level: 0, index: 3), on: $0) }
        #expect(beyond == nil)
        _ = try? await log.pool.execute("DROP SCHEMA IF EXISTS \(unescaped: log.schema) CASCADE")
        log.pool.close()
    }

    /// `HALLMARK_AGGREGATOR_TILES_DIR`: two replicas' tile writers keep one directory up to the
    /// growing log, taking turns; a larger checkpoint already there is never replaced by a
    /// smaller one, and another log's directory is refused.
    @Test func tileWritersKeepADirectoryUpToTheLog() async throws {
        var log = try await Self.build(300)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tiles-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var logger = Logger(label: "tile-writer-tests")
        logger.logLevel = .critical
        let replicas = (0..<2).map { _ in
            TileWriter(
                directory: TileDirectory(path: directory), store: LogStore(schema: log.schema), pool: log.pool,
                interval: .seconds(1),
                logger: logger)
        }
        func served() throws -> String { try String(contentsOfFile: directory + "/checkpoint", encoding: .utf8) }
        // Every tile is there; the small trees' tiles are also computed here and compared.
        func checkTiles() {
            for tile in TileCoordinate.tiles(treeSize: UInt64(log.leaves.count)) {
                let bytes = FileManager.default.contents(atPath: directory + "/" + tile.description)
                #expect(bytes != nil, "\(tile)")
                if log.leaves.count <= 1_100 { #expect(bytes == Self.expected(tile, leaves: log.leaves), "\(tile)") }
            }
        }
        for size in [300, 1_100, 70_000] {
            try await log.grow(to: size, batch: 7_000)
            async let first = replicas[0].round()
            async let second = replicas[1].round()
            let rounds = await [first, second]
            // Each round either wrote the directory up to the log or found it up to date.
            #expect(rounds.allSatisfy { $0 == nil || $0?.treeSize == UInt64(size) }, "\(rounds)")
            if rounds.allSatisfy({ $0 == nil }) { #expect(await replicas[0].round()?.treeSize == UInt64(size)) }
            #expect(try served() == log.notes[UInt64(size)])
            checkTiles()
        }

        // While another replica holds the turn, a round skips.
        let turn = try await PostgresConnection.connect(
            configuration: try PostgresConfiguration.fromEnvironment(), logger: logger)
        try await turn.query("SELECT pg_advisory_lock(hashtext(\(log.schema)), hashtext('tile-directory'))")
        try await log.grow(to: 70_100)
        #expect(await replicas[0].round() == nil)
        #expect(try served() == log.notes[70_000])
        try await turn.query("SELECT pg_advisory_unlock(hashtext(\(log.schema)), hashtext('tile-directory'))")
        #expect(await replicas[0].round() == TileDirectory.Written(treeSize: 70_100, written: 2, kept: 0))

        // A larger checkpoint of this log already there (a restored database) stays.
        let signer = try log.key.signer(origin: log.vkey.name)
        let larger = try signer.note(
            CheckpointText(origin: log.vkey.name, treeSize: 80_000, rootHash: try SecureRandom.bytes(32)), time: 1_800_000_000
        ).formatted
        try Data(larger.utf8).write(to: URL(fileURLWithPath: directory + "/checkpoint"))
        try await log.grow(to: 70_200)
        #expect(await replicas[1].round() == TileDirectory.Written(treeSize: 80_000, ahead: true))
        #expect(try served() == larger)
        // Another log's checkpoint: refused, left alone.
        let other = try CheckpointSigningKey.generate().signer(origin: "other.example/log").note(
            CheckpointText(origin: "other.example/log", treeSize: 5, rootHash: try SecureRandom.bytes(32)), time: 1
        ).formatted
        try Data(other.utf8).write(to: URL(fileURLWithPath: directory + "/checkpoint"))
        #expect(await replicas[1].round() == nil)
        #expect(try served() == other)
        _ = try? await log.pool.execute("DROP SCHEMA IF EXISTS \(unescaped: log.schema) CASCADE")
        log.pool.close()
    }
}
