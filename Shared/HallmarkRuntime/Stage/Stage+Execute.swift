import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import Logging

extension Stage {
    /// Runs a unit to its end: intake, phase 1 and phase 2 for each message, so every message
    /// has its outputs (results, or a rejected record). Nil only when shutdown's grace ran
    /// out while retrying: the unit is then left for the next consumer.
    func execute(_ messages: [KafkaMessage]) async -> StageUnit? {
        var unit = StageUnit(items: messages.map { StageUnit.Item(message: $0) })
        var pending: [(index: Int, message: StageMessage, prepared: Processor.Prepared)] = []
        for i in unit.items.indices {
            let kafka = unit.items[i].message
            switch intake(kafka) {
            case .refused(let refused, let rejection):
                unit.items[i].id = refused?.id
                unit.items[i].outputs = rejectedOutput(kafka, id: refused?.id, rejection, refused: refused)
            case .answered(let id, let rejection, let outputs):
                unit.items[i].id = id
                unit.items[i].outputs = settle(outputs, for: kafka, id: id, rejection)
            case .accepted(let message):
                unit.items[i].id = message.header.id
                guard let outcome = await prepare(message) else { return nil }
                switch outcome {
                case .prepared(let message, let prepared): pending.append((i, message, prepared))
                case .rejected(let rejection):
                    unit.items[i].outputs = rejectedOutput(
                        kafka, id: message.header.id, rejection,
                        refused: RefusedMessage(message, reason: rejection.reason))
                }
            }
            // Long batches of CPU work: let the consumer's feeder and other workers run.
            if i % 64 == 63 { await Task.yield() }
        }
        guard !pending.isEmpty else { return unit }
        guard let outcomes = await commitPhase(pending.map { ($0.message, $0.prepared) }) else { return nil }
        for (k, outcome) in outcomes.enumerated() {
            let (index, message) = (pending[k].index, pending[k].message)
            let kafka = unit.items[index].message
            switch outcome {
            case .processed(let outputs):
                unit.processed += 1
                unit.items[index].outputs = outputs
            case .duplicate(let outputs):
                unit.duplicates += 1
                unit.items[index].outputs = outputs
                logger(for: kafka, id: message.header.id).info(
                    "redelivery answered again",
                    metadata: ["resent": "\(outputs.count)"])
            case .rejected(let rejection, let recorded?):
                // Made in its transaction and recorded with it: sent as recorded.
                noteRejected(kafka, id: message.header.id, rejection)
                unit.items[index].outputs = recorded
            case .rejected(let rejection, nil):
                // An expired answer is not for the result topic: the first answer went there.
                let refused = rejection.reason == .answerExpired ? nil : RefusedMessage(message, reason: rejection.reason)
                unit.items[index].outputs = rejectedOutput(kafka, id: message.header.id, rejection, refused: refused)
            }
        }
        return unit
    }

    /// A schema violation's rejected record, then the processor's typed answer to it, unless
    /// that would not fit.
    private func settle(
        _ outputs: [StageOutput], for message: KafkaMessage, id: MessageID, _ rejection: StageRejection
    )
        -> [StageOutput]
    {
        if let oversized = oversized(outputs) { return rejectedOutput(message, id: id, oversized) }
        return rejectedOutput(message, id: id, rejection) + outputs
    }

    /// Phase 1 with retries; nil when shutdown's grace ran out.
    func prepare(_ message: StageMessage) async -> PrepareOutcome<Processor.Prepared>? {
        try? await retryPolicy.run { failures -> PrepareOutcome<Processor.Prepared>? in
            // The message's logger is built only when something logs (it costs per message).
            let context = StageContext(
                stage: logger, message: message.kafka, id: message.header.id,
                attempt: failures, pool: database?.pool)
            return .prepared(message, try await processor.prepare(message, context: context))
        } onFailure: { error, failures in
            if let rejection = rejection(for: error, attempts: failures) { return .stop(.rejected(rejection)) }
            if pastShutdownGrace { return .stop(nil) }
            metrics.retries.increment()
            logger(for: message.kafka, id: message.header.id).warning(
                "processing failed; retrying",
                metadata: [
                    "phase": "prepare", "attempt": "\(failures)", "error": "\(ErrorPolicy.safeDescription(error))",
                ])
            return .retry
        }
    }

    /// The rejection an error ends in after `attempts` attempts, or nil to retry it: bad input
    /// and permanent errors at once, other errors once they used up their attempts, transient
    /// ones never.
    func rejection(for error: any Error, attempts: Int, limit: Int? = nil) -> StageRejection? {
        if let r = error as? StageRejection { return r }
        if let e = error as? EnvelopeError { return StageRejection(e.code, e.reason) }
        if ErrorPolicy.isPermanent(error) {
            return StageRejection(.processingFailed, "failed permanently: \(ErrorPolicy.safeDescription(error))")
        }
        guard !ErrorPolicy.isTransient(error), attempts >= (limit ?? configuration.maxAttempts) else { return nil }
        return StageRejection(.processingFailed, "failed \(attempts) times: \(ErrorPolicy.safeDescription(error))")
    }

    /// `oversized` when an output would not fit the broker's limit.
    func oversized(_ outputs: [StageOutput]) -> StageRejection? {
        guard let big = outputs.first(where: { !producer.fits(key: $0.key, value: $0.value) }) else { return nil }
        let size = big.value.count + (big.key?.count ?? 0)
        return StageRejection(.oversized, "its result would be \(size) bytes; the limit is \(producer.maxMessageBytes)")
    }
}
