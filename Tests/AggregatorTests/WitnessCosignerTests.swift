import AggregatorCore
import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkPostgres
import HallmarkRuntime
import Logging
import Testing
import WitnessCore

/// The aggregator's witness client against witnesses that refuse, each as C2SP tlog-witness
/// says, counted per witness: one that knows the log under another key (403), one that does
/// not know the log (404), one that holds a checkpoint of another history (409, then 422 for
/// the proof from there), one that is down; and one that cosigns. Only the cosigner's size and
/// lines are kept, and the refusing ones are asked again in the next round.
@Suite("Aggregator witness client refusals", .serialized, .timeLimit(.minutes(4)))
struct WitnessCosignerTests {
    @Test func eachRefusalIsCountedPerWitnessAndNothingOfItIsKept() async throws {
        var log = try await LogTilesTests.build(300)
        let vkey = log.vkey
        let signer = try log.key.signer(origin: vkey.name)
        let stranger = try CheckpointSigningKey.generate().verifierKey(origin: vkey.name)
        let otherLog = try CheckpointSigningKey.generate().verifierKey(origin: "other.example/log")
        let good = try await AggregatorWitnessTests.serve("good", logs: [vkey])
        let wrongKey = try await AggregatorWitnessTests.serve("wrong-key", logs: [stranger])
        let unknown = try await AggregatorWitnessTests.serve("unknown", logs: [otherLog])
        let forked = try await AggregatorWitnessTests.serve("forked", logs: [vkey])
        defer { [good, wrongKey, unknown, forked].forEach { $0.stop() } }
        // The forked witness was shown another history by this log's key: 200 leaves, another root.
        let fork = try signer.note(
            CheckpointText(origin: vkey.name, treeSize: 200, rootHash: try SecureRandom.bytes(32)), time: 1_800_000_000)
        let shown = AddCheckpointRequest(
            oldSize: 0, proof: [], checkpoint: SignedNote(text: fork.text, signatures: [fork.signatures[0]]))
        #expect(await forked.witness.add(Array(shown.formatted.utf8)).status == 200)

        let down = try NoteSigner(name: "witness.test/down", seed: try SecureRandom.bytes(32), algorithm: .cosignatureV1)
        let policy = try TransparencyPolicy.parse(
            """
            log \(vkey)
            witness good \(good.witness.verifierKey) http://127.0.0.1:\(good.port)
            witness wrong-key \(wrongKey.witness.verifierKey) http://127.0.0.1:\(wrongKey.port)
            witness unknown \(unknown.witness.verifierKey) http://127.0.0.1:\(unknown.port)
            witness forked \(forked.witness.verifierKey) http://127.0.0.1:\(forked.port)
            witness down \(down.verifierKey) http://127.0.0.1:9
            quorum good

            """)
        var logger = Logger(label: "witness-cosigner-tests")
        logger.logLevel = .critical
        let metrics = MetricsRegistry()
        let cosigner = WitnessCosigner(
            policy: policy, store: LogStore(schema: log.schema), pool: log.pool, interval: .seconds(1), timeout: .seconds(5),
            deadline: .seconds(45), logger: logger, metrics: metrics)
        func requests(_ witness: String, _ outcome: String) -> Double {
            metrics.snapshot().counters.first {
                $0.name == "hallmark_aggregator_witness_requests_total" && $0.dimensions["witness"] == witness
                    && $0.dimensions["outcome"] == outcome
            }?.value ?? 0
        }
        let store = LogStore(schema: log.schema)
        for (round, size) in [(1, 300), (2, 600)] {
            if size > log.leaves.count { try await log.grow(to: size) }
            await cosigner.round()
            #expect(requests("good", "cosigned") == Double(round))
            #expect(requests("wrong-key", "refused_403") == Double(round))
            #expect(requests("unknown", "refused_404") == Double(round))
            #expect(requests("forked", "refused_422") == Double(round))
            #expect(requests("down", "unreachable") == Double(round))
            let sizes = try await log.pool.withConnection { connection in
                try await policy.witnesses.asyncMap { try await store.witnessSize($0.key, on: connection) }
            }
            #expect(sizes == [UInt64(size), nil, nil, nil, nil], "round \(round)")
            // The checkpoint served carries the good witness's cosignature only.
            let latest = try await log.pool.withConnection { try await store.latestCheckpoint(on: $0) }
            let note = try SignedNote.parse(Array(try #require(latest?.note).utf8))
            #expect(policy.cosigners(of: note) == ["good"])
            // The quorum (good) cosigned: witnessed up to the size, nothing waits.
            #expect(Self.gauge(metrics, "hallmark_aggregator_witnessed_tree_size") == Double(size))
            #expect(Self.gauge(metrics, "hallmark_aggregator_checkpoint_unwitnessed_seconds") == 0)
            #expect(Self.gauge(metrics, "hallmark_aggregator_witness_deadline_seconds") == 45)
        }
        // The forked witness still holds the history it was shown.
        #expect(try WitnessState.load(forked.state).logs[vkey.name]?.size == 200)
        _ = try? await log.pool.execute("DROP SCHEMA IF EXISTS \(unescaped: log.schema) CASCADE")
        log.pool.close()
    }
}

extension WitnessCosignerTests {
    static func gauge(_ metrics: MetricsRegistry, _ name: String) -> Double? {
        metrics.snapshot().gauges.first { $0.name == name }?.value
    }

    /// A quorum that cannot be met (its only witness is down): the log is not witnessed, and
    /// the wait runs from the checkpoint's signing time, growing, through newer checkpoints,
    /// until a round finds the quorum met.
    @Test func aCheckpointWaitingForItsQuorumIsTimedFromItsSigning() async throws {
        var log = try await LogTilesTests.build(100)
        let good = try await AggregatorWitnessTests.serve("good", logs: [log.vkey])
        defer { good.stop() }
        let down = try NoteSigner(name: "witness.test/down", seed: try SecureRandom.bytes(32), algorithm: .cosignatureV1)
        func policy(quorum: String) throws -> TransparencyPolicy {
            try TransparencyPolicy.parse(
                """
                log \(log.vkey)
                witness good \(good.witness.verifierKey) http://127.0.0.1:\(good.port)
                witness down \(down.verifierKey) http://127.0.0.1:9
                quorum \(quorum)

                """)
        }
        var logger = Logger(label: "witness-cosigner-tests")
        logger.logLevel = .critical
        let metrics = MetricsRegistry()
        let cosigner = WitnessCosigner(
            policy: try policy(quorum: "down"), store: LogStore(schema: log.schema), pool: log.pool, interval: .seconds(1),
            timeout: .seconds(2), logger: logger, metrics: metrics)
        await cosigner.round()
        let latest = try #require(
            await log.pool.withConnection { try await LogStore(schema: log.schema).latestCheckpoint(on: $0) })
        let signed = Date(timeIntervalSince1970: TimeInterval(latest.timestamp))
        #expect(Self.gauge(metrics, "hallmark_aggregator_witnessed_tree_size") == 0)
        #expect(Self.gauge(metrics, "hallmark_aggregator_witness_deadline_seconds") == 600)
        await cosigner.observe(now: signed.addingTimeInterval(700))
        #expect(Self.gauge(metrics, "hallmark_aggregator_checkpoint_unwitnessed_seconds") == 700)
        // A newer checkpoint does not restart the wait.
        try await log.grow(to: 200)
        await cosigner.round()
        await cosigner.observe(now: signed.addingTimeInterval(900))
        #expect(Self.gauge(metrics, "hallmark_aggregator_checkpoint_unwitnessed_seconds") == 900)
        // The same log under a quorum that is met (good cosigned in the rounds above).
        let met = WitnessCosigner(
            policy: try policy(quorum: "good"), store: LogStore(schema: log.schema), pool: log.pool, interval: .seconds(1),
            timeout: .seconds(2), logger: logger, metrics: metrics)
        await met.round()
        #expect(Self.gauge(metrics, "hallmark_aggregator_witnessed_tree_size") == 200)
        #expect(Self.gauge(metrics, "hallmark_aggregator_checkpoint_unwitnessed_seconds") == 0)
        _ = try? await log.pool.execute("DROP SCHEMA IF EXISTS \(unescaped: log.schema) CASCADE")
        log.pool.close()
    }
}

extension Sequence {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        for element in self { out.append(try await transform(element)) }
        return out
    }
}
