import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime

/// The intake stage (`birthmark.submissions`): reads each bundle, answers what cannot be
/// logged at once (`malformed`, `unknown_authority`), and asks the authority about the token
/// of the rest: a `hallmark.token.request.v1` carrying the token and nothing else, recorded as
/// pending in the same transaction as the submission (``PendingRequests``), sent after it
/// commits. The authority's answer is joined by ``TokenResultJoiner``.
///
/// Idempotent by submission id without the runtime's inbox: a submission seen before is not
/// asked about again; if it has been answered, the recorded answer is sent again.
public struct SubmissionIntake: StageProcessor {
    /// What phase 1 made of a submission.
    public enum Prepared: Sendable {
        /// Answered at once.
        case answer(StageOutput)
        /// To validate.
        case validate(Ask)
    }

    /// A submission to record and the request to the authority about its token.
    public struct Ask: Sendable {
        let row: SubmissionTable.Row
        let request: StageOutput
        let correlationID: UUID
    }

    let configuration: AggregatorConfiguration
    let pending: PendingRequests
    let metrics: AggregatorMetrics

    public init(configuration: AggregatorConfiguration, pending: PendingRequests, metrics: AggregatorMetrics) {
        self.configuration = configuration
        self.pending = pending
        self.metrics = metrics
    }

    /// The input this stage consumes.
    public var inputs: [StageInput] { [StageInput(topic: configuration.submissionInput, schemas: [Submission.schemaName])] }

    public func prepare(_ message: StageMessage, context: StageContext) async throws -> Prepared {
        let submission = try message.decode(Submission.self)
        guard let id = UUID(text: message.header.id) else { return .answer(try rejected(message, .malformed)) }
        if submission.shape == .cameraSubmission, submission.manufacturerCert?.authorityID != configuration.authorityID {
            return .answer(try rejected(message, .unknownAuthority))
        }
        guard let token = submission.token, !submission.entries.isEmpty else { return .answer(try rejected(message, .malformed)) }
        // The request names nothing but the token; its ids are derived from the submission's
        // (a submission sent again asks the same question) and its key is the correlation id,
        // so neither the authority nor the key says which image it is about.
        let correlation = MessageID.derived(from: message.header.id, "token-correlation")
        let request = TokenRequest(id: MessageID.derived(from: message.header.id, "token-request"), producedAt: Timestamp.now(),
                                   token: token, correlationID: correlation, replyTo: configuration.tokenResults)
        let row = SubmissionTable.Row(id: id, entries: submission.entries, capturedAt: submission.timestamp,
                                      correlationID: message.correlationID,
                                      replyTopic: message.replyTopic(or: configuration.submissionOutput),
                                      replyKey: message.kafka.key)
        return .validate(Ask(row: row, request: try .json(topic: configuration.tokenRequests, key: correlation, request),
                             correlationID: UUID(text: correlation)!))
    }

    public func commit(_ batch: [Prepared], context: StageCommitContext) async throws -> [StageVerdict] {
        guard let pool = context.pool else { throw StageRejection(.processingFailed, "intake needs its database") }
        var rows: [SubmissionTable.Row] = []
        for case .validate(let ask) in batch { rows.append(ask.row) }
        let table = SubmissionTable(schema: configuration.schema)
        let (fresh, answered) = try await pool.transaction { connection in
            let fresh = try await table.insert(rows, on: connection)
            var asks: [(request: StageOutput, correlationID: UUID, context: [UInt8])] = []
            for case .validate(let ask) in batch where fresh.contains(ask.row.id) {
                asks.append((ask.request, ask.correlationID, Array(ask.row.id.lowercasedText.utf8)))
            }
            try await pending.record(asks, on: connection)
            let seen = rows.map(\.id).filter { !fresh.contains($0) }
            return (fresh, try await table.answers(seen, on: connection))
        }
        var asked = Set<UUID>()
        return batch.map { prepared in
            switch prepared {
            case .answer(let output):
                return .outputs([output])
            case .validate(let ask):
                if fresh.contains(ask.row.id) {
                    // One request per new submission, even if a batch holds it twice.
                    return .outputs(asked.insert(ask.row.id).inserted ? [ask.request] : [])
                }
                // Seen before: its answer again if it has one; otherwise it is still in progress.
                guard let answer = answered[ask.row.id] else { return .outputs([]) }
                metrics.resubmitted.increment()
                return .outputs([StageOutput(topic: answer.topic, key: answer.key, value: answer.value)])
            }
        }
    }

    /// A schema violation is answered `malformed` on the submission's reply topic.
    public func answer(invalid message: StageMessage, violation: SchemaViolation) throws -> [StageOutput]? {
        [try rejected(message, .malformed)]
    }

    private func rejected(_ message: StageMessage, _ reason: SubmissionResult.Reason) throws -> StageOutput {
        metrics.submission(reason.rawValue)
        let result = SubmissionResult(id: message.resultID, producedAt: Timestamp.now(), correlationID: message.correlationID,
                                      requestID: message.header.id, reason: reason)
        return try .json(topic: message.replyTopic(or: configuration.submissionOutput), key: message.key, result)
    }
}
