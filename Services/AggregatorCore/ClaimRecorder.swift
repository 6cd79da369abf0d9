import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime

/// The claims stage (`birthmark.modifications`, DESIGN BM-PROVENANCE): records each editor's
/// ``ModificationClaim`` and answers it on `birthmark.modification.results`.
/// - `recorded`: the claim holds its final image, or the same edit (same original, same level)
///   already did, under its first claim's id;
/// - `rejected`: `invalid_provenance` (the final image is its own original), `already_claimed`
///   (another edit holds the final image), `malformed` and the runtime's reasons.
///
/// A claim is never logged and never checked: no software authority exists yet. Whether its
/// original is in the log does not matter to the record; provenance says what is attested.
/// One transaction per batch, which also records the inbox: a redelivered claim gets its
/// first answer again.
package struct ClaimRecorder: TransactionalStageProcessor {
    package typealias Prepared = (message: StageMessage, claim: ModificationClaim, refusal: ModificationResult.Reason?)

    let configuration: AggregatorConfiguration
    let store: ClaimStore
    let metrics: AggregatorMetrics

    package init(configuration: AggregatorConfiguration, store: ClaimStore, metrics: AggregatorMetrics) {
        self.configuration = configuration
        self.store = store
        self.metrics = metrics
    }

    /// The input this stage consumes.
    package var inputs: [StageInput] {
        [StageInput(topic: configuration.claimInput, schemas: [ModificationClaim.schemaName])]
    }

    /// One transaction for a whole batch.
    package var unitOfWork: StageUnitOfWork { .perBatch }

    package func prepare(_ message: StageMessage, context: StageContext) async throws -> Prepared {
        let claim = try message.decode(ModificationClaim.self)
        return (message, claim, claim.finalImageHash == claim.originalImageHash ? .invalidProvenance : nil)
    }

    package func commit(_ batch: [Prepared], in transaction: StageTransaction) async throws -> [StageVerdict] {
        let fresh = batch.filter { $0.refusal == nil }.map { (id: $0.message.header.id.uuid, claim: $0.claim) }
        let held = try await store.record(fresh, on: transaction.connection)
        return try batch.map { message, claim, refusal in
            let result: ModificationResult
            if let refusal {
                result = ModificationResult(reason: refusal)
            } else if let holder = held[claim.finalImageHash], holder.claim.originalImageHash == claim.originalImageHash,
                holder.claim.modificationLevel == claim.modificationLevel
            {
                result = ModificationResult(
                    recorded: holder.id.lowercasedText, finalImageHash: claim.finalImageHash,
                    modificationLevel: claim.modificationLevel)
            } else {
                result = ModificationResult(reason: .alreadyClaimed)
            }
            metrics.claim(result.reason?.rawValue ?? result.status.rawValue)
            return .outputs([try message.reply(result, or: configuration.claimOutput)])
        }
    }

    /// A claim that breaks its schema is answered `rejected` / `malformed`.
    package func answer(invalid message: StageMessage, violation: SchemaViolation) throws -> [StageOutput]? {
        metrics.claim(ModificationResult.Reason.malformed.rawValue)
        return [try message.reply(ModificationResult(reason: .malformed), or: configuration.claimOutput)]
    }

    /// A claim refused before it was read, whose id reads, is answered with the runtime's reason.
    package func answer(refused message: RefusedMessage) throws -> [StageOutput]? {
        let reason = ModificationResult.Reason(rawValue: message.resultReason) ?? .malformed
        metrics.claim(reason.rawValue)
        return [try message.reply(ModificationResult(reason: reason), or: configuration.claimOutput)]
    }
}
