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

/// The log's storage in a real PostgreSQL, in-process: RFC 6962's vectors through stored
/// nodes, proofs from storage equal to proofs from all the leaves, the frontier rebuilt from
/// storage, and the writer's batches (duplicates, signed checkpoints, recorded answers).
@Suite("Transparency log storage", .serialized, .timeLimit(.minutes(4)))
struct TransparencyLogTests {
    static let rfcLeaves = RFC6962Vectors.leaves
    static let rfcRoots = RFC6962Vectors.roots

    /// A fresh aggregator schema.
    static func schema() async throws -> (PostgresPool, String) {
        let (pool, schema, _) = try await Self.schema(without: nil)
        return (pool, schema)
    }

    /// A fresh aggregator schema with every migration but `version` (a database from before
    /// it), and what applies the rest, as a start-up after an upgrade does.
    static func schema(
        without version: Int?
    ) async throws -> (PostgresPool, String, upgrade: @Sendable () async throws -> Void) {
        var logger = Logger(label: "log-tests")
        logger.logLevel = .warning
        let pool = PostgresPool(configuration: try PostgresConfiguration.fromEnvironment(), logger: logger)
        let schema = "aggregator_log_\(String(UUID().uuidString.prefix(8)).lowercased())"
        let database = StageDatabase(pool: pool, schema: schema)
        let all = AggregatorMigrations.all(schema: schema)
        try await database.migrate(all.filter { $0.version != version }, logger: logger)
        return (pool, schema, { [logger] in try await database.migrate(all, logger: logger) })
    }

    static func drop(_ pool: PostgresPool, _ schema: String) async {
        _ = try? await pool.execute("DROP SCHEMA IF EXISTS \(unescaped: schema) CASCADE")
        pool.close()
    }

    @Test func rfcVectorsThroughStoredNodes() async throws {
        let (pool, schema) = try await Self.schema()
        let store = LogStore(schema: schema)
        var frontier = MerkleFrontier()
        let hashes = Self.rfcLeaves.map(MerkleTree.leafHash)
        for (n, hash) in hashes.enumerated() {
            let nodes = frontier.append(leafHash: hash)
            try await pool.withConnection { try await store.storeNodes(nodes, on: $0) }
            // The stored nodes give every RFC root, the frontier back, and the same proofs.
            try await pool.withConnection { connection in
                let size = n + 1
                let rebuilt = try await store.frontier(size: Int64(size), on: connection)
                #expect(rebuilt == frontier && Hex.encode(rebuilt.root) == Self.rfcRoots[n])
                for index in 0..<size {
                    let proof = try await store.inclusionProofs([(Int64(index), Int64(size))], on: connection)[0]
                    #expect(proof == (try MerkleTree.inclusionProof(leafIndex: index, leafHashes: Array(hashes.prefix(size)))))
                    #expect(
                        MerkleTree.verifyInclusion(
                            leafHash: hashes[index], leafIndex: index, treeSize: size, proof: proof,
                            root: frontier.root))
                }
                let batch = try await store.inclusionProofs((0..<size).map { (Int64($0), Int64(size)) }, on: connection)
                #expect(
                    batch
                        == (try (0..<size).map {
                            try MerkleTree.inclusionProof(leafIndex: $0, leafHashes: Array(hashes.prefix(size)))
                        }))
                for old in 0...size {
                    let proof = try await store.consistencyProof(old: Int64(old), new: Int64(size), on: connection)
                    #expect(proof == (try MerkleTree.consistencyProof(oldSize: old, leafHashes: Array(hashes.prefix(size)))))
                }
            }
        }
        #expect(Hex.encode(frontier.root) == "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328")
        await Self.drop(pool, schema)
    }

    static func item(_ hashes: [String], at time: UInt64 = 1_700_000_000) -> TransparencyLog.Item {
        TransparencyLog.Item(
            id: UUID(), entries: hashes.map { .init(imageHash: $0, modificationLevel: 0) },
            capturedAt: time, correlationID: MessageID.random().text, replyTopic: "answers", replyKey: nil)
    }

    /// Batches through the writer's append, as the ordered writer calls it: duplicates take no
    /// position, each batch that appends ends in a signed checkpoint of the stored tree, and a
    /// stale cached frontier (another leader wrote since) is never used.
    @Test func appendsBatchesWithDuplicatesAndSignedCheckpoints() async throws {
        let (pool, schema) = try await Self.schema()
        let key = try CheckpointSigningKey.generate()
        let log = try TransparencyLog(schema: schema, key: key, checkpointTopic: "checkpoints", metrics: AggregatorMetrics())
        let other = try TransparencyLog(schema: schema, key: key, checkpointTopic: "checkpoints", metrics: AggregatorMetrics())
        let h = (0..<40).map { _ in Hex.encode(try! SecureRandom.bytes(32)) }
        var size: Int64 = 0
        func append(_ writer: TransparencyLog, _ items: [TransparencyLog.Item]) async throws -> OrderedWriterBatch {
            let batch = try await pool.transaction { try await writer.append(items, at: size, on: $0) }
            size += Int64(batch.appended)
            return batch
        }
        // A new hash twice in one submission and across submissions of one batch: one leaf.
        let first = try await append(log, [Self.item([h[0], h[1], h[0]]), Self.item([h[1], h[2]])])
        #expect(first.appended == 3)
        let answers = try first.outputs.dropFirst().map { try JSONCoding.decode(Message<SubmissionResult>.self, from: $0.value) }
        #expect(answers.map(\.status) == [.accepted, .accepted])
        #expect(answers[0].leaves?.map(\.leafIndex) == [0, 1, 0] && answers[1].leaves?.map(\.leafIndex) == [1, 2])
        #expect(answers[0].leaves?.map(\.status) == [.appended, .appended, .duplicate])
        // Only logged hashes: duplicate, no position, no checkpoint.
        let again = try await append(log, [Self.item([h[2], h[0]])])
        #expect(again.appended == 0 && again.outputs.count == 1)
        #expect(try JSONCoding.decode(Message<SubmissionResult>.self, from: again.outputs[0].value).status == .duplicate)
        // Another writer (a new leader) appends; the first one's cache is then stale.
        _ = try await append(other, [Self.item(Array(h[3..<10]))])
        _ = try await append(log, [Self.item(Array(h[10..<25])), Self.item(Array(h[25..<40]))])
        #expect(size == 40)
        let stored = try await pool.query(
            """
            SELECT encode(image_hash, 'hex') FROM \(unescaped: schema).leaves ORDER BY leaf_index
            """
        ).decode(String.self)
        #expect(stored == h)
        let root = MerkleTree.root(
            leafHashes: try await pool.withConnection { connection in
                try await LogStore(schema: schema).leaves(stored.map { try Hex.decode($0) }, on: connection)
            }.values.sorted { $0.index < $1.index }.map(\.leaf.leafHash))
        let checkpoints = try await pool.withConnection { try await LogStore(schema: schema).latestCheckpoint(on: $0) }
        let latest = try #require(checkpoints)
        #expect(latest.treeSize == 40 && latest.rootHash == Hex.encode(root) && latest.verify(publicKey: key.publicKey))
        #expect(!latest.verify(publicKey: try CheckpointSigningKey.generate().publicKey))
        // The same checkpoint as a C2SP note, opened with the log's vkey (its time as a
        // cosignature by the same key); another key's vkey opens nothing.
        let vkey = try key.verifierKey(origin: AggregatorConfiguration.declared(\.origin))
        let text = try #require(try latest.openNote(vkey: vkey))
        #expect(text.treeSize == 40 && text.rootHash == root && text.origin == vkey.name)
        let note = try SignedNote.parse(Array(try #require(latest.note).utf8))
        #expect(try note.verified(by: [vkey.for(.cosignatureV1)]).first?.time == latest.timestamp)
        let stranger = try CheckpointSigningKey.generate().verifierKey(origin: vkey.name)
        #expect(throws: HallmarkCryptoError.self) { try latest.openNote(vkey: stranger) }
        await Self.drop(pool, schema)
    }

    /// A batch's outbox record (16 bytes an answer, not a copy of the answers) makes its outputs
    /// again for a new leader: the checkpoint under its id and as signed (a witness's
    /// cosignature kept since is not in it), each answer byte for byte from its submission's row.
    @Test func theOutboxRecordMakesTheBatchsOutputsAgain() async throws {
        let (pool, schema) = try await Self.schema()
        let log = try TransparencyLog(
            schema: schema, key: try CheckpointSigningKey.generate(), checkpointTopic: "checkpoints",
            metrics: AggregatorMetrics())
        let ledger = SubmissionLedger(schema: schema)
        let items = (0..<3).map { _ in Self.item([Hex.encode(try! SecureRandom.bytes(32))]) }
        let copy = Self.item([items[0].entries[0].imageHash])
        func append(_ batch: [TransparencyLog.Item], at position: Int64) async throws -> OrderedWriterBatch {
            try await pool.transaction { connection in
                _ = try await ledger.record(batch.map { ($0, Data(count: 32)) }, on: connection)
                try await ledger.queue(batch.map(\.id), on: connection)
                return try await log.append(batch, at: position, on: connection)
            }
        }
        let first = try await append(items, at: 0)
        let second = try await append([copy], at: 3)
        #expect(first.outbox?.count == 9 + 16 * 3 && second.outbox?.count == 9 + 16)
        _ = try await pool.execute(
            "INSERT INTO \(unescaped: schema).cosignatures (tree_size, witness, lines) VALUES (3, 'w', 'a line')")
        for batch in [first, second] {
            let record = try #require(batch.outbox)
            let again = try await pool.withConnection { try await log.outputs(again: record, on: $0) }
            #expect(again.count == batch.outputs.count)
            for (made, sent) in zip(again, batch.outputs) {
                #expect(made.topic == sent.topic && made.key == sent.key)
                guard made.topic == "checkpoints" else {
                    #expect(made.value == sent.value)
                    continue
                }
                let a = try JSONCoding.decode(Message<Checkpoint>.self, from: made.value)
                let b = try JSONCoding.decode(Message<Checkpoint>.self, from: sent.value)
                #expect(a.id == b.id && a.body == b.body)
            }
        }
        await #expect(throws: LogStoreError.self) { try await pool.withConnection { try await log.outputs(again: [2], on: $0) } }
        await Self.drop(pool, schema)
    }

    /// A database at version 1 (a `log_queue` table) upgraded while submissions wait: they stay
    /// queued in their order, the one still validating stays out of the queue, and the writer
    /// then logs them and empties the queue.
    @Test func upgradeKeepsTheQueueAndItsOrder() async throws {
        let (pool, schema, upgrade) = try await Self.schema(without: 2)
        let items = (0..<5).map { _ in Self.item([Hex.encode(try! SecureRandom.bytes(32))]) }
        let ledger = SubmissionLedger(schema: schema)
        try await pool.withConnection { connection in
            _ = try await ledger.record(items.map { ($0, Data(count: 32)) }, on: connection)
            // Queued in an order unrelated to their ids; the last one is still being validated.
            for item in items.dropLast().reversed() {
                try await connection.execute(
                    """
                    UPDATE \(unescaped: schema).submissions SET status = 'queued' WHERE submission_id = \(item.id);
                    """)
                try await connection.execute("INSERT INTO \(unescaped: schema).log_queue (submission_id) VALUES (\(item.id))")
            }
        }
        try await upgrade()
        let log = try TransparencyLog(
            schema: schema, key: try CheckpointSigningKey.generate(), checkpointTopic: "checkpoints",
            metrics: AggregatorMetrics())
        let waiting = try await pool.withConnection { try await log.waiting(limit: 10, on: $0) }
        #expect(waiting.map(\.id) == items.dropLast().reversed().map(\.id))
        let batch = try await pool.transaction { try await log.append(waiting, at: 0, on: $0) }
        #expect(batch.appended == 4)
        #expect(try await pool.withConnection { try await log.waitingCount(limit: 10, on: $0) } == 0)
        // Validated later, it joins the queue behind them.
        try await pool.withConnection { try await ledger.queue([items[4].id], on: $0) }
        #expect(try await pool.withConnection { try await log.waiting(limit: 10, on: $0) }.map(\.id) == [items[4].id])
        await Self.drop(pool, schema)
    }
}
