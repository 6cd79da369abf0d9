import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime

/// The stage that keeps submission outcomes with their receipts: the one reader of the
/// aggregator's answers (one consumer group for all replicas), it records each one whose
/// correlation id is a receipt of the edge's, in one statement per batch, which also tells the
/// replica whose request waits (``ReceiptOutcomes``). Idempotent: the first answer stays.
package struct ReceiptRecorder: StageProcessor {
    package typealias Prepared = (receipt: UUID, result: [UInt8])?

    let topic: String
    let receipts: ReceiptStore
    /// This replica's waiting requests, handed what the stage stored for them.
    let outcomes: ReceiptOutcomes

    package init(topic: String, receipts: ReceiptStore, outcomes: ReceiptOutcomes) {
        self.topic = topic
        self.receipts = receipts
        self.outcomes = outcomes
    }

    /// The input this stage consumes.
    package var inputs: [StageInput] { [StageInput(topic: topic, schemas: [SubmissionResult.schemaName])] }

    package func prepare(_ message: StageMessage, context: StageContext) async throws -> Prepared {
        message.header.correlationID.flatMap { UUID(text: $0) }.map { ($0, message.value) }
    }

    package func commit(_ batch: [Prepared], context: StageCommitContext) async throws -> [StageVerdict] {
        let answers = batch.compactMap { $0 }
        try await outcomes.recording(answers.map(\.receipt)) { try await receipts.record(answers) }
        return batch.map { _ in .outputs([]) }
    }
}
