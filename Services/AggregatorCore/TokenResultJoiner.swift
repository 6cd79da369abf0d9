import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime
import Metrics

/// Joins the authority's PASS/FAIL answers (`birthmark.token.results`) to the submissions
/// that asked, by `correlation_id`, in one transaction per batch (with the runtime's inbox, so
/// a redelivered answer repeats its outputs and nothing else):
/// - PASS: the submission is queued for the log writer;
/// - FAIL: the submission is answered `rejected` with the authority's reason, and the answer
///   is recorded for a submission sent again.
/// A certificate bundle's answer (`hallmark.device.result.v1`) joins the same way.
/// An answer that joins nothing (a duplicate, or one that came after the submission gave up)
/// is counted and dropped. Answers come one per message or many in a result carrier
/// (`hallmark.token.result.batch.v1`, DESIGN §2), joined alike; a carrier's item that breaks
/// its schema joins nothing and is counted with them.
package struct TokenResultJoiner: TransactionalStageProcessor {
    /// The answers one consumed message holds: itself, or a carrier's items.
    package typealias Prepared = [(correlation: UUID?, result: TokenResult)]

    let configuration: AggregatorConfiguration
    /// The ledger whose token requests it answers and whose submissions it moves, the writer it
    /// wakes.
    let flow: SubmissionFlow
    let metrics: AggregatorMetrics

    package init(configuration: AggregatorConfiguration, flow: SubmissionFlow, metrics: AggregatorMetrics) {
        self.configuration = configuration
        self.flow = flow
        self.metrics = metrics
    }

    /// The input this stage consumes.
    package var inputs: [StageInput] {
        [StageInput(topic: configuration.tokenResults, schemas: Set(Self.answers + [TokenResultBatch.schemaName]))]
    }

    /// The answers it joins, alone or in a carrier: token results, and the answers about
    /// certificate bundles' devices (DESIGN BM-CERT).
    static let answers = [TokenResult.schemaName, DeviceResult.schemaName]

    package func prepare(_ message: StageMessage, context: StageContext) async throws -> Prepared {
        // The correlation id is the header's, already read; only the body is decoded.
        func answer(_ message: StageMessage) throws -> (correlation: UUID?, result: TokenResult) {
            let correlation = message.header.correlationID.flatMap { UUID(text: $0) }
            guard message.header.schema == DeviceResult.schemaName else {
                return (correlation, try message.decode(TokenResult.self))
            }
            return (correlation, TokenResult(reason: try message.decode(DeviceResult.self).reason))
        }
        guard message.header.schema == TokenResultBatch.schemaName else { return [try answer(message)] }
        return BatchCarrier.items(of: message, itemSchemas: Self.answers).compactMap { item in
            guard item.violation == nil, let joined = try? answer(item.message) else {
                metrics.unmatchedReplies.increment()
                context.logger.warning("a token result in a carrier breaks its schema; it joins nothing")
                return nil
            }
            return joined
        }
    }

    /// One transaction for a whole batch.
    package var unitOfWork: StageUnitOfWork { .perBatch }

    package func commit(_ batch: [Prepared], in transaction: StageTransaction) async throws -> [StageVerdict] {
        let connection = transaction.connection
        let ledger = flow.ledger
        let joined = try await ledger.asked(batch.flatMap { $0.compactMap(\.correlation) }, on: connection)
        var passed: [UUID] = [], failed: [(id: UUID, reason: SubmissionResult.Reason)] = []
        // Each message's submissions that failed, to hand them their answers below.
        let failedAt: [[UUID]] = batch.map { answers in
            answers.compactMap { item in
                guard let correlation = item.correlation, let submission = joined[correlation] else {
                    metrics.unmatchedReplies.increment()
                    return nil
                }
                if item.result.valid {
                    passed.append(submission)
                    return nil
                }
                failed.append((submission, SubmissionResult.Reason(item.result.reason ?? .malformed)))
                return submission
            }
        }
        try await ledger.queue(passed, on: connection)
        // Derived submissions awaiting these roots (``CaptureTokens``) follow them: queued with
        // them, or answered with the root's reason, in the root's outputs.
        let answers = try await ledger.reject(failed, on: connection)
        for (id, reason) in failed {
            for _ in answers[id] ?? [] { metrics.submission(reason.rawValue) }
        }
        // After the commit: woken earlier, the writer would look before the rows are visible.
        if !passed.isEmpty { transaction.afterCommit { [bell = flow.writerBell] in bell.ring() } }
        return failedAt.map { submissions in .outputs(submissions.flatMap { answers[$0] ?? [] }) }
    }

}
