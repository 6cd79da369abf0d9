import AggregatorCore
import Foundation
import HallmarkCrypto
import HallmarkPostgres
import Logging
import ServiceLifecycle
import WitnessCore

extension AggregatorBench {
    /// Full tiles (hash tiles and entry bundles, alternately) read at random from the tree the
    /// in-process writer stored, by `readers` concurrent connections for `seconds`: the most an
    /// HTTP front serving tiles from PostgreSQL could serve. Returns tiles per second.
    func tileReads(schema: String, size: Int, readers: Int, seconds: Double) async throws -> Double {
        let store = LogStore(schema: schema)
        let full = UInt64(size / TileCoordinate.width)
        precondition(full > 0, "the tile bench needs at least one full tile")
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        let start = ContinuousClock.now
        let reads = try await withThrowingTaskGroup(of: Int.self) { group in
            for reader in 0..<readers {
                group.addTask { [pool = world.pool] in
                    try await pool.withConnection { connection in
                        var count = 0
                        while ContinuousClock.now < deadline {
                            let tile = Self.randomFullTile(count + reader, among: full)
                            guard try await store.tile(tile, on: connection) != nil else {
                                throw BenchError("tile \(tile) is missing")
                            }
                            count += 1
                        }
                        return count
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        return Double(reads) / (ContinuousClock.now - start).seconds
    }

    /// The `n`th tile a reader asks for: a random full tile of the log's `full` ones, a hash
    /// tile (level 0) and an entry bundle alternately.
    static func randomFullTile(_ n: Int, among full: UInt64) -> TileCoordinate {
        TileCoordinate(level: n % 2 == 0 ? 0 : nil, index: .random(in: 0..<full))
    }

    /// Checkpoint round trips through `count` local C2SP witnesses (`hallmark witness`'s server
    /// on loopback): each round appends a batch to the log (a new checkpoint), then times one
    /// round of the aggregator's witness client, which asks every witness at once with its
    /// consistency proof. Returns the round trips in milliseconds, sorted.
    func witnessRoundTrips(
        schema: String, log: TransparencyLog, size: Int64, witnesses count: Int, rounds: Int
    )
        async throws -> [Double]
    {
        let (servers, text) = try await Self.startWitnesses(count, world: world)
        let policy = try TransparencyPolicy.parse(text)
        defer { for group in servers { Task { await group.triggerGracefulShutdown() } } }
        var logger = Logger(label: "hallmark.bench.witness")
        logger.logLevel = .critical
        let cosigner = WitnessCosigner(
            policy: policy, store: LogStore(schema: schema), pool: world.pool, interval: .seconds(1), timeout: .seconds(10),
            logger: logger)
        var size = size
        var times: [Double] = []
        for _ in 0..<rounds {
            let batch = try (0..<100).map { _ in
                TransparencyLog.Item(
                    id: UUID(), entries: [.init(imageHash: Hex.encode(try SecureRandom.bytes(32)), modificationLevel: 0)],
                    capturedAt: 1_700_000_000, correlationID: "bench", replyTopic: "unused", replyKey: nil)
            }
            size += Int64(try await world.pool.transaction { [size] in try await log.append(batch, at: size, on: $0) }.appended)
            let start = ContinuousClock.now
            await cosigner.round()
            times.append((ContinuousClock.now - start).seconds * 1000)
            let store = LogStore(schema: schema)
            for witness in policy.witnesses {
                let held = try await world.pool.withConnection { try await store.witnessSize(witness.key, on: $0) }
                guard held == UInt64(size) else { throw BenchError("witness \(witness.name) did not cosign size \(size)") }
            }
        }
        return times.sorted()
    }

    /// `count` local C2SP witnesses (`hallmark witness`'s server on loopback ports) that know
    /// the world's log, and the C2SP tlog-policy text naming them all as the quorum. The caller
    /// shuts the servers down.
    static func startWitnesses(_ count: Int, world: World) async throws -> ([ServiceGroup], String) {
        var logger = Logger(label: "hallmark.bench.witness")
        logger.logLevel = .critical
        let vkey = try world.key.verifierKey(origin: AggregatorConfiguration.declared(\.origin))
        var servers: [ServiceGroup] = []
        var lines = ["log \(vkey)"]
        for n in 0..<count {
            let state = world.folder.appendingPathComponent("witness-\(UUID()).json").path
            let witness = try Witness(
                name: "bench.witness/w\(n)", seed: try SecureRandom.bytes(32), logs: [vkey], statePath: state, logger: logger)
            let (group, port) = try await WitnessServer.start(witness, logger: logger)
            servers.append(group)
            lines.append("witness w\(n) \(witness.verifierKey) http://127.0.0.1:\(port)")
        }
        lines.append("group all \(count) " + (0..<count).map { "w\($0)" }.joined(separator: " "))
        lines.append("quorum all")
        return (servers, lines.joined(separator: "\n") + "\n")
    }
}
