import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime

/// A batch's outbox record (``OrderedWriterBatch/outbox``): its outputs are in the log's own
/// tables already, the checkpoint in its row and each answer in its submission's
/// (``SubmissionLedger/answerLogged(_:treeSize:on:)``), so the writer's outbox keeps where they
/// are, 16 bytes an answer, rather than a copy of them: stored, a batch's answers were TOAST
/// chunks, half a row a bundle written and deleted (#55).
extension TransparencyLog {
    /// Version 1: a version byte, the size of the checkpoint the batch signed (big-endian; 0 for
    /// none), then the ids of the submissions it answered, 16 bytes each, in order.
    static func outbox(checkpoint size: Int64, answered ids: [UUID]) -> [UInt8] {
        var out: [UInt8] = [1]
        out.reserveCapacity(9 + 16 * ids.count)
        withUnsafeBytes(of: size.bigEndian) { out.append(contentsOf: $0) }
        for id in ids { withUnsafeBytes(of: id.uuid) { out.append(contentsOf: $0) } }
        return out
    }

    /// The checkpoint size and answered ids of a version-1 record; nil for anything else.
    static func outboxContents(_ record: [UInt8]) -> (checkpoint: Int64, answered: [UUID])? {
        guard record.count >= 9, record[0] == 1, (record.count - 9) % 16 == 0 else { return nil }
        let size = record[1..<9].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        let ids = stride(from: 9, to: record.count, by: 16).map { start in
            record.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(fromByteOffset: start, as: uuid_t.self)) }
        }
        return (size, ids)
    }

    /// The batch's checkpoint, then its answers, as it sent them: the checkpoint message under
    /// its id (its `produced_at` new), each answer byte for byte as its submission's row keeps it.
    package func outputs(again record: [UInt8], on connection: PostgresConnection) async throws -> [StageOutput] {
        guard let (size, ids) = Self.outboxContents(record) else {
            throw LogStoreError(detail: "a writer outbox record that is not one")
        }
        var outputs: [StageOutput] = []
        if size > 0 {
            guard let signed = try await store.checkpoint(size: size, cosigned: false, on: connection) else {
                throw LogStoreError(detail: "no checkpoint of size \(size) for its batch's outbox")
            }
            outputs.append(try checkpointOutput(signed))
        }
        let seen = try await ledger.seen(ids, on: connection)
        // An answer swept since (after its retention) is not sent again.
        return outputs + ids.compactMap { seen[$0]?.answer }
    }

    /// A checkpoint as the log sends it: its id derived from the key and the size, so every
    /// sending of it has the same.
    func checkpointOutput(_ signed: SignedCheckpoint) throws -> StageOutput {
        let message = Message(Checkpoint(signed), id: MessageID.derived(from: signed.keyID, "checkpoint-\(signed.treeSize)"))
        return try .json(topic: checkpointTopic, key: "checkpoint", message)
    }
}
