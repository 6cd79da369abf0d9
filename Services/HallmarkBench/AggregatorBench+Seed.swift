import AggregatorCore
import Foundation
import HallmarkCrypto
import HallmarkPostgres
import HallmarkRuntime
import Logging

extension AggregatorBench.World {
    /// What seeding the log measured: the same work early and late in one run, so the machine's
    /// speed, which swings from minute to minute, mostly cancels out of the ratios.
    struct Seeding {
        /// Leaves per second over the whole seeding.
        var rate: Double
        /// The writer's leaves/s over the first and over the last `timedBatches` batches.
        var firstAppend: Double, lastAppend: Double
        /// Hashes looked up with inclusion proofs per second, from PostgreSQL, at `earlySize`
        /// leaves and at the seeded size.
        var earlyProofs: Double, lateProofs: Double
        var earlySize: Int64, size: Int64
    }

    static let timedBatches = 20
    static let earlySize: Int64 = 50_000

    /// A migrated log in `schema`, signed with the world's key, for the bench's in-process writer.
    func log(schema: String, logger: Logger) async throws -> TransparencyLog {
        try await StageDatabase(pool: pool, schema: schema).migrate(AggregatorMigrations.all(schema: schema), logger: logger)
        return try TransparencyLog(schema: schema, key: key, checkpointTopic: "unused", metrics: AggregatorMetrics())
    }

    /// Puts `leaves` random leaves in the aggregator's log before its process starts, through
    /// the log writer in this process (1,000 a batch, each with its signed checkpoint, tiles
    /// and lookup rows, as the aggregator writes them), so the bench can show how its costs
    /// grow with the log's size. Needs at least 100,000 leaves.
    func seedLog(_ leaves: Int, logger: Logger) async throws -> Seeding {
        precondition(leaves >= 100_000, "seed at least 100,000 leaves")
        let log = try await log(schema: aggregator.schema, logger: logger)
        var size: Int64 = 0
        var sample: [Data] = []
        var batches: [(leaves: Int, seconds: Double)] = []
        var earlyProofs = 0.0
        let start = ContinuousClock.now
        while size < Int64(leaves) {
            let batch = try AggregatorBench.randomItems(min(1000, leaves - Int(size)))
            // Every 100th leaf: at the early size too, a round's 100 hashes are all different.
            for item in stride(from: 0, to: batch.count, by: 100) {
                sample.append(try Hex.decode(batch[item].entries[0].imageHash, length: 32))
            }
            let began = ContinuousClock.now
            let appended = try await pool.transaction { [size] in try await log.append(batch, at: size, on: $0) }.appended
            size += Int64(appended)
            batches.append((appended, (ContinuousClock.now - began).seconds))
            if size == Self.earlySize { earlyProofs = try await proofReads(sample, at: size, connections: 1) }
            if size % 500_000 == 0, size < Int64(leaves) { printNow("  seeding the log: \(size) of \(leaves) leaves") }
        }
        let rate = Double(size) / (ContinuousClock.now - start).seconds
        let lateProofs = try await proofReads(sample, at: size, connections: 1)
        try await OrderedWriter<TransparencyLog>.placeHead(
            size, name: TransparencyLog.writerName, schema: aggregator.schema, pool: pool)
        func leavesPerSecond(_ timed: ArraySlice<(leaves: Int, seconds: Double)>) -> Double {
            Double(timed.map(\.leaves).reduce(0, +)) / timed.map(\.seconds).reduce(0, +)
        }
        return Seeding(
            rate: rate, firstAppend: leavesPerSecond(batches.prefix(Self.timedBatches)),
            lastAppend: leavesPerSecond(batches.suffix(Self.timedBatches)),
            earlyProofs: earlyProofs, lateProofs: lateProofs, earlySize: Self.earlySize, size: size)
    }
}
