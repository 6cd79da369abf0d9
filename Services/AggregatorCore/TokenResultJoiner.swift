import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime
import Metrics

/// Joins the authority's PASS/FAIL answers (`birthmark.token.results`) to the submissions
/// that asked, by `correlation_id`, in one transaction per batch (with the runtime's inbox, so
/// a redelivered answer repeats its outputs and nothing else):
/// - PASS: the submission waits for the log writer (`log_queue`);
/// - FAIL: the submission is answered `rejected` with the authority's reason, and the answer
///   is recorded for a submission sent again.
/// An answer that joins nothing (a duplicate, or one that came after the submission gave up)
/// is counted and dropped.
public struct TokenResultJoiner: StageProcessor {
    public typealias Prepared = (message: StageMessage, result: TokenResult)

    let configuration: AggregatorConfiguration
    let pending: PendingRequests
    let metrics: AggregatorMetrics
    let writer: (@Sendable () -> Void)?

    /// - Parameter writer: called after a batch queued submissions (wakes the log writer).
    public init(configuration: AggregatorConfiguration, pending: PendingRequests, metrics: AggregatorMetrics,
                wake writer: (@Sendable () -> Void)? = nil) {
        self.configuration = configuration
        self.pending = pending
        self.metrics = metrics
        self.writer = writer
    }

    /// The input this stage consumes.
    public var inputs: [StageInput] { [StageInput(topic: configuration.tokenResults, schemas: [TokenResult.schemaName])] }

    public func prepare(_ message: StageMessage, context: StageContext) async throws -> Prepared {
        (message, try message.decode(TokenResult.self))
    }

    public func commit(_ batch: [Prepared], context: StageCommitContext) async throws -> [StageVerdict] {
        guard let connection = context.connection else { throw StageRejection(.processingFailed, "the joiner needs its database") }
        let joined = try await pending.take(batch.compactMap { UUID(text: $0.result.correlationId) }, on: connection)
        let table = SubmissionTable(schema: configuration.schema)
        var passed: [UUID] = [], failed: [(UUID, ValidationReason)] = []
        var verdicts: [StageVerdict] = []
        var slots: [Int: Int] = [:]  // batch position → index in failed
        for (position, item) in batch.enumerated() {
            guard let correlation = UUID(text: item.result.correlationId), let request = joined[correlation],
                  let submission = UUID(text: String(decoding: request.context, as: UTF8.self)) else {
                metrics.unmatchedReplies.increment()
                verdicts.append(.outputs([]))
                continue
            }
            if item.result.valid {
                passed.append(submission)
            } else {
                slots[position] = failed.count
                failed.append((submission, item.result.reason ?? .malformed))
            }
            verdicts.append(.outputs([]))
        }
        try await table.enqueue(passed, on: connection)
        if !failed.isEmpty {
            let destinations = try await table.destinations(failed.map(\.0), on: connection)
            var answers: [(UUID, Data)] = []
            for (position, slot) in slots {
                let (submission, reason) = failed[slot]
                guard let destination = destinations[submission] else { continue }
                let result = SubmissionResult(id: MessageID.derived(from: submission.lowercasedText, "result"),
                                              producedAt: Timestamp.now(), correlationID: destination.correlationID,
                                              requestID: submission.lowercasedText, reason: SubmissionResult.Reason(reason))
                let bytes = try JSONCoding.encode(result)
                answers.append((submission, Data(bytes)))
                verdicts[position] = .outputs([StageOutput(topic: destination.topic, key: destination.key, value: bytes)])
                metrics.submission(reason.rawValue)
            }
            try await table.answer(answers, on: connection)
        }
        if !passed.isEmpty { writer?() }
        return verdicts
    }

    /// The answer for submissions whose token the authority never judged in time: recorded,
    /// then sent by the retrier.
    static func timedOut(_ requests: [PendingRequest], schema: String, pool: PostgresPool,
                         metrics: AggregatorMetrics) async throws -> [StageOutput] {
        let ids = requests.compactMap { UUID(text: String(decoding: $0.context, as: UTF8.self)) }
        let table = SubmissionTable(schema: schema)
        return try await pool.transaction { connection in
            let destinations = try await table.destinations(ids, on: connection)
            var answers: [(UUID, Data)] = [], outputs: [StageOutput] = []
            for id in ids {
                guard let destination = destinations[id] else { continue }
                let result = SubmissionResult(id: MessageID.derived(from: id.lowercasedText, "result"),
                                              producedAt: Timestamp.now(), correlationID: destination.correlationID,
                                              requestID: id.lowercasedText, reason: .validationTimeout)
                let bytes = try JSONCoding.encode(result)
                answers.append((id, Data(bytes)))
                outputs.append(StageOutput(topic: destination.topic, key: destination.key, value: bytes))
                metrics.submission(SubmissionResult.Reason.validationTimeout.rawValue)
            }
            try await table.answer(answers, on: connection)
            return outputs
        }
    }
}
