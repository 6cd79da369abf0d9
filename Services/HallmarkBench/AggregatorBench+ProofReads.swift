import AggregatorCore
import Foundation
import HallmarkPostgres

extension AggregatorBench.World {
    /// Image hashes looked up, each with its inclusion proof, per second, read in this process
    /// from the aggregator's schema as its verifier answers a batch: the leaves in one query and
    /// every proof's nodes in one more, at `size` leaves, or (nil) at the latest checkpoint,
    /// read first as the verifier reads it. `connections` readers at once, each `rounds`
    /// batches of `perBatch` different hashes drawn from `sample`, every one of which must be
    /// in the log at that size. No Kafka, no JSON, no schema check: the ceiling of the
    /// verification stage's own reads, which `hallmark bench aggregator` holds its
    /// verification rate against (#55, goal ≥ 0.5).
    func proofReads(
        _ sample: [Data], at size: Int64? = nil, connections: Int, rounds: Int = 50, perBatch: Int = 100
    ) async throws -> Double {
        precondition(sample.count >= perBatch && connections > 0, "too few hashes to draw a batch from")
        let store = LogStore(schema: aggregator.schema)
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<connections {
                group.addTask { [pool] in
                    try await pool.withConnection { connection in
                        for _ in 0..<rounds {
                            var picked = Set<Int>()
                            while picked.count < perBatch { picked.insert(.random(in: sample.indices)) }
                            let hashes = picked.map { sample[$0] }
                            let treeSize: Int64
                            if let size {
                                treeSize = size
                            } else {
                                guard let latest = try await store.latestCheckpoint(on: connection) else {
                                    throw BenchError("the log has no checkpoint to prove inclusion against")
                                }
                                treeSize = Int64(latest.treeSize)
                            }
                            let found = try await store.leaves(hashes, on: connection)
                            let indices = found.values.map(\.index).filter { $0 < treeSize }.sorted()
                            let proofs = try await store.inclusionProofs(indices.map { ($0, treeSize) }, on: connection)
                            guard indices.count == hashes.count, proofs.count == hashes.count else {
                                throw BenchError("the log is missing leaves it was given")
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        return Double(connections * rounds * perBatch) / (ContinuousClock.now - start).seconds
    }
}
