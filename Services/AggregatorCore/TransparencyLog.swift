import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime
import Synchronization

/// BM-LOG as an ``OrderedWriterLog``: the ordered single writer appends validated submissions'
/// hashes in batches. Each batch, in one transaction:
/// 1. finds which hashes are already logged (and repeats within the batch): those are answered
///    `duplicate` with their existing leaf index and take no position;
/// 2. appends the rest as leaves, storing every perfect subtree each one completes (a row per
///    block of 64 nodes, ``LogStore/storeNodes(_:on:)``);
/// 3. signs a checkpoint of the new tree head and stores it;
/// 4. records each submission's answer in the ``SubmissionLedger`` (queued → answered), so the
///    same id asked again gets it again.
/// The outputs (the checkpoint, then the answers) are sent only after the commit, so no
/// `accepted` answer ever names a leaf its checkpoint does not cover. The writer's outbox keeps
/// only where they are (``outputs(again:on:)``).
package struct TransparencyLog: OrderedWriterLog {
    /// A validated submission waiting for the log.
    package typealias Item = SubmissionRecord
    /// The name of the ordered writer that appends to the log (its head row in `hallmark_writer`).
    package static let writerName = "transparency-log"

    let store: LogStore
    let ledger: SubmissionLedger
    /// Signs checkpoints and their notes under the log's C2SP origin.
    let signer: CheckpointSigningKey.LogSigner
    let checkpointTopic: String
    let metrics: AggregatorMetrics
    /// The head after the last batch this process built; used only when it matches the
    /// committed checkpoint at the batch's position, else rebuilt from stored nodes.
    private let cached = FrontierCache()

    /// The log over `flow`'s tables and ledger.
    package init(
        flow: SubmissionFlow, key: CheckpointSigningKey, checkpointTopic: String,
        origin: String = AggregatorConfiguration.declared(\.origin), metrics: AggregatorMetrics
    ) throws {
        try self.init(
            store: flow.log, ledger: flow.ledger, key: key, checkpointTopic: checkpointTopic, origin: origin,
            metrics: metrics)
    }

    /// A log of its own over `schema`'s tables (benchmarks and tests that drive the writer alone).
    package init(
        schema: String, key: CheckpointSigningKey, checkpointTopic: String,
        origin: String = AggregatorConfiguration.declared(\.origin), metrics: AggregatorMetrics
    ) throws {
        try self.init(
            store: LogStore(schema: schema), ledger: SubmissionLedger(schema: schema), key: key,
            checkpointTopic: checkpointTopic, origin: origin, metrics: metrics)
    }

    private init(
        store: LogStore, ledger: SubmissionLedger, key: CheckpointSigningKey, checkpointTopic: String, origin: String,
        metrics: AggregatorMetrics
    ) throws {
        self.store = store
        self.ledger = ledger
        signer = try key.signer(origin: origin)
        self.checkpointTopic = checkpointTopic
        self.metrics = metrics
    }

    package func waitingCount(limit: Int, on connection: PostgresConnection) async throws -> Int {
        try await ledger.queuedCount(limit: limit, on: connection)
    }

    package func waiting(limit: Int, on connection: PostgresConnection) async throws -> [Item] {
        try await ledger.queued(limit: limit, on: connection)
    }

    package func append(_ items: [Item], at position: Int64, on connection: PostgresConnection) async throws -> OrderedWriterBatch
    {
        // Each entry's hash in raw bytes, once.
        let raw = try items.map { try $0.entries.map { try Hex.decode($0.imageHash, length: 32) } }
        let logged = try await store.leaves(Array(Set(raw.joined())), on: connection)
        var frontier = try await frontier(at: position, on: connection)
        var fresh: [Data: Int64] = [:]
        var leaves: [(index: Int64, leaf: BirthmarkLogLeaf, attribution: Attribution)] = []
        var nodes: [MerkleTree.Node] = []
        var placed: [[SubmissionResult.Leaf]] = []
        for (item, hashes) in zip(items, raw) {
            var answer: [SubmissionResult.Leaf] = []
            for (entry, hash) in zip(item.entries, hashes) {
                if let index = logged[hash]?.index ?? fresh[hash] {
                    answer.append(.init(imageHash: entry.imageHash, leafIndex: UInt64(index), status: .duplicate))
                    continue
                }
                let leaf = try BirthmarkLogLeaf(
                    imageHash: hash, timestamp: item.capturedAt,
                    modificationLevel: UInt8(entry.modificationLevel),
                    parentHash: try entry.parentImageHash.map { try Hex.decode($0, length: 32) })
                let index = position + Int64(leaves.count)
                fresh[hash] = index
                leaves.append((index, leaf, item.attribution))
                nodes += frontier.append(leafHash: leaf.leafHash)
                answer.append(.init(imageHash: entry.imageHash, leafIndex: UInt64(index), status: .appended))
            }
            placed.append(answer)
        }
        let size = position + Int64(leaves.count)
        var outputs: [StageOutput] = []
        if !leaves.isEmpty {
            try await insert(leaves, nodes: nodes, on: connection)
            let signed = try signer.sign(
                try LogCheckpoint(
                    treeSize: UInt64(size), rootHash: frontier.root,
                    timestamp: UInt64(Date().timeIntervalSince1970)))
            try await connection.execute(
                """
                INSERT INTO \(unescaped: store.schema).checkpoints (tree_size, root_hash, signed_at, signature, key_id, note)
                VALUES (\(size), \(frontier.root), \(Int64(signed.timestamp)), \(try Base64.decode(signed.signature)),
                        \(signed.keyID), \(signed.note))
                """)
            outputs.append(try checkpointOutput(signed))
        }
        let answered = try await ledger.answerLogged(Array(zip(items, placed)), treeSize: UInt64(size), on: connection)
        for result in answered.results { metrics.submission(result.status.rawValue) }
        outputs += answered.outputs
        cached.value.withLock { $0 = frontier }
        metrics.treeSize.set(Double(size))
        // The outbox keeps where the outputs are, not a copy: the checkpoint's row and the answers'.
        let outbox = Self.outbox(checkpoint: leaves.isEmpty ? 0 : size, answered: items.map(\.id))
        return OrderedWriterBatch(appended: leaves.count, outputs: outputs, outbox: outbox)
    }

    /// The frontier at `position`: this process's own when its size and root match the
    /// committed checkpoint there (a batch that failed to commit, or another leader's batches
    /// since, make it disagree), else rebuilt from stored nodes.
    private func frontier(at position: Int64, on connection: PostgresConnection) async throws -> MerkleFrontier {
        guard position > 0 else { return MerkleFrontier() }
        if let frontier = cached.value.withLock({ $0 }), frontier.size == Int(position) {
            let rows = try await connection.query(
                """
                SELECT root_hash FROM \(unescaped: store.schema).checkpoints WHERE tree_size = \(position)
                """)
            if let root = try rows.first?.column(0, as: Data.self), root == frontier.root { return frontier }
        }
        return try await store.frontier(size: position, on: connection)
    }

    private func insert(
        _ leaves: [(index: Int64, leaf: BirthmarkLogLeaf, attribution: Attribution)], nodes: [MerkleTree.Node],
        on connection: PostgresConnection
    ) async throws {
        try await connection.execute(
            """
            INSERT INTO \(unescaped: store.schema).leaves
                (leaf_index, image_hash, captured_at, modification_level, parent_hash, gps_hash, owner_hash)
            SELECT i, h, c, m::smallint, NULLIF(p, ''::bytea), NULLIF(g, ''::bytea), NULLIF(o, ''::bytea)
            FROM unnest(\(PostgresArray(leaves.map(\.index))), \(PostgresArray(leaves.map(\.leaf.imageHash))),
                        \(PostgresArray(leaves.map { Int64($0.leaf.timestamp) })),
                        \(PostgresArray(leaves.map { Int64($0.leaf.modificationLevel) })),
                        \(PostgresArray(leaves.map { $0.leaf.parentHash ?? Data() })),
                        \(PostgresArray(leaves.map { $0.attribution.gpsHash ?? Data() })),
                        \(PostgresArray(leaves.map { $0.attribution.ownerHash ?? Data() }))) AS l(i, h, c, m, p, g, o)
            """)
        try await store.storeNodes(nodes, on: connection)
    }
}

/// The writer's last frontier, shared by the copies of the log value.
final class FrontierCache: Sendable {
    let value = Mutex<MerkleFrontier?>(nil)
}
