import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime

/// The verification stage (`birthmark.verify.requests`): read-only answers, checkable offline
/// with the aggregator's public key.
/// - inclusion: the record, its leaf index, the latest checkpoint with its signature and the
///   RFC 6962 audit path against it; `not_found` as of the latest checkpoint.
/// - consistency: the proof from a checkpoint's size to a later one (the latest by default);
///   sizes the log made no checkpoint for are `unknown_tree_size`.
/// - provenance: the image's chain, attested links from the log and claimed ones from editors
///   (``LogVerifier+Provenance.swift``).
/// Any number of replicas may run it; it writes nothing.
package struct LogVerifier: StageProcessor {
    package typealias Prepared = (message: StageMessage, request: LogVerifyRequest)

    let configuration: AggregatorConfiguration
    let store: LogStore
    let metrics: AggregatorMetrics
    /// Reads only: a connection per batch, no transaction.
    let pool: PostgresPool
    /// The witness policy that says whether a checkpoint is witnessed; nil without witnesses.
    let policy: TransparencyPolicy?
    /// Editors' claims, for provenance.
    let claims: ClaimStore

    package init(
        configuration: AggregatorConfiguration, store: LogStore, metrics: AggregatorMetrics, pool: PostgresPool,
        policy: TransparencyPolicy? = nil
    ) {
        self.pool = pool
        self.policy = policy
        self.configuration = configuration
        self.store = store
        self.metrics = metrics
        claims = ClaimStore(schema: store.schema)
    }

    /// The input this stage consumes.
    package var inputs: [StageInput] { [StageInput(topic: configuration.verifyInput, schemas: [LogVerifyRequest.schemaName])] }

    package func prepare(_ message: StageMessage, context: StageContext) async throws -> Prepared {
        (message, try message.decode(LogVerifyRequest.self))
    }

    package func commit(_ batch: [Prepared], context: StageCommitContext) async throws -> [StageVerdict] {
        return try await pool.withConnection { connection in
            // The checkpoint first: a leaf appended after it is answered as of it (not_found).
            let latest = try await store.latestCheckpoint(on: connection)
            let hashes = batch.compactMap { $0.request.imageHash.flatMap { try? Hex.decode($0, length: 32) } }
            let leaves = try await store.leaves(hashes, on: connection)
            // Every inclusion proof of the batch from one query for their nodes.
            var proofs: [Int64: [Data]] = [:]
            if let latest {
                let size = Int64(latest.treeSize)
                let wanted = Set(leaves.values.map(\.index).filter { $0 < size }).sorted()
                let built = try await store.inclusionProofs(wanted.map { ($0, size) }, on: connection)
                proofs = Dictionary(uniqueKeysWithValues: zip(wanted, built))
            }
            var verdicts: [StageVerdict] = []
            // Most answers of a batch carry the same (latest) checkpoint: its cosignatures are
            // checked once, not once per answer.
            var witnessed: [UInt64: Bool] = [:]
            for (message, request) in batch {
                var result = try await answer(message, request, latest: latest, leaves: leaves, proofs: proofs, on: connection)
                if let policy, let checkpoint = result.checkpoint {
                    if witnessed[checkpoint.treeSize] == nil {
                        witnessed[checkpoint.treeSize] = Self.isWitnessed(checkpoint, by: policy)
                    }
                    result.witnessed = witnessed[checkpoint.treeSize]
                }
                metrics.verification(result.status.rawValue)
                verdicts.append(.outputs([try message.reply(result, or: configuration.verifyOutput)]))
            }
            return verdicts
        }
    }

    /// Whether the witnesses' cosignatures on the checkpoint's note satisfy the policy.
    static func isWitnessed(_ checkpoint: SignedCheckpoint, by policy: TransparencyPolicy) -> Bool {
        guard let note = checkpoint.note.flatMap({ try? SignedNote.parse(Array($0.utf8)) }) else { return false }
        return policy.isSatisfied(by: policy.cosigners(of: note))
    }

    private func answer(
        _ message: StageMessage, _ request: LogVerifyRequest, latest: SignedCheckpoint?,
        leaves: [Data: LogStore.Leaf], proofs: [Int64: [Data]],
        on connection: PostgresConnection
    ) async throws -> LogVerifyResult {
        func rejected(_ reason: LogVerifyResult.Reason) -> LogVerifyResult {
            .rejected(
                query: request.query, reason: reason)
        }
        switch request.query {
        case .inclusion:
            guard let text = request.imageHash, let hash = try? Hex.decode(text, length: 32),
                request.oldTreeSize == nil, request.newTreeSize == nil
            else { return rejected(.malformed) }
            guard let latest else { return rejected(.unknownTreeSize) }
            guard let found = leaves[hash], UInt64(found.index) < latest.treeSize, let proof = proofs[found.index] else {
                return .notFound(
                    imageHash: text,
                    checkpoint: latest)
            }
            let record = LogVerifyResult.Record(
                imageHash: text, timestamp: found.leaf.timestamp,
                modificationLevel: Int(found.leaf.modificationLevel),
                parentImageHash: found.leaf.parentHash.map(Hex.encode))
            return .found(
                record: record, attribution: found.attribution.answer,
                leafIndex: UInt64(found.index), checkpoint: latest, proof: proof.map(Hex.encode))
        case .provenance:
            guard let text = request.imageHash, (try? Hex.decode(text, length: 32)) != nil, request.oldTreeSize == nil,
                request.newTreeSize == nil
            else { return rejected(.malformed) }
            return try await provenance(text, latest: latest, on: connection)
        case .consistency:
            guard request.imageHash == nil, let old = request.oldTreeSize else { return rejected(.malformed) }
            let newSize = request.newTreeSize ?? latest?.treeSize ?? 0
            guard old <= newSize, newSize <= UInt64(Int64.max) else { return rejected(.malformed) }
            let target = newSize == latest?.treeSize ? latest : try await store.checkpoint(size: Int64(newSize), on: connection)
            let oldKnown = old == 0 ? true : try await store.checkpoint(size: Int64(old), on: connection) != nil
            guard let target, oldKnown else { return rejected(.unknownTreeSize) }
            let proof = try await store.consistencyProof(old: Int64(old), new: Int64(newSize), on: connection)
            return .consistent(
                oldTreeSize: old,
                checkpoint: target, proof: proof.map(Hex.encode))
        }
    }

    /// A schema violation is answered `rejected` / `malformed`.
    package func answer(invalid message: StageMessage, violation: SchemaViolation) throws -> [StageOutput]? {
        let query = message.fields["query"]?.string.flatMap(LogVerifyRequest.Query.init(rawValue:)) ?? .inclusion
        metrics.verification(LogVerifyResult.Status.rejected.rawValue)
        let result = LogVerifyResult.rejected(query: query, reason: .malformed)
        return [try message.reply(result, or: configuration.verifyOutput)]
    }
}
