import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkKafka
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime

/// The intake stage (`birthmark.submissions`): reads each bundle, answers what cannot be
/// logged at once (`malformed`, `unknown_authority`, a certificate bundle's own checks:
/// ``CertificateBundles``), and asks the authority about the token of the rest: a
/// `hallmark.token.request.v1` carrying the token and nothing else (for a certificate bundle,
/// a `hallmark.device.request.v1` carrying its sealed handle and nothing else), recorded as
/// pending in the same transaction as the submission (``PendingRequests``), sent after it
/// commits, all of a batch's requests in one `hallmark.token.request.batch.v1` carrier
/// (DESIGN §2; a resent request goes alone). The authority's answer is joined by ``TokenResultJoiner``. A submission whose
/// hashes break the provenance rule (``Provenance``) is recorded and answered
/// `invalid_provenance` without asking; one whose parent is known nowhere yet waits for it
/// (``ParentWaits``: that refusal would depend on state that can still change).
///
/// Idempotent by submission id without the runtime's inbox. Every answer the intake makes
/// (`malformed`, `unknown_authority`, `invalid_provenance`) is recorded with the submission,
/// as the inbox records a stage's outputs: a redelivery (the same id with the same content, by
/// the ``StageMessage/contentDigest`` recorded with the submission) is not asked about again,
/// and if it has been answered, the recorded answer is sent again, byte for byte. The same id
/// with other content is answered `id_reused` and raises a security event; nothing of it is
/// logged.
package struct SubmissionIntake: StageProcessor {
    /// What phase 1 made of a submission: one to record, then validate or refuse.
    package typealias Prepared = Ask

    /// A submission to record and the request to the authority about its token.
    package struct Ask: Sendable {
        let message: StageMessage
        let row: SubmissionRecord
        /// The message's ``StageMessage/contentDigest``.
        let digest: Data
        let provenance: Provenance
        /// The keyed digest ``CaptureTokens`` knows its capture by: its token's, or a
        /// certificate bundle's certificate and time; nil when it has none.
        let capture: Data?
        /// A certificate bundle's checks passed (DESIGN BM-CERT); nil for a token's bundle.
        var certificate: CertificateBundles.Passed? = nil
        /// The token request; nil when the submission is refused without asking (``refusal``).
        let request: StageOutput?
        let correlationID: UUID
        /// Refused without asking (`malformed`, `unknown_authority`): recorded with its answer,
        /// so a redelivery gets that answer again byte for byte.
        let refusal: SubmissionResult.Reason?

        /// The token request as its submission's row keeps it while the authority answers; nil
        /// when it asks nothing.
        var tokenAsk: SubmissionLedger.TokenAsk? {
            guard refusal == nil, let request else { return nil }
            return SubmissionLedger.TokenAsk(correlationID: correlationID, request: request.value)
        }
    }

    let configuration: AggregatorConfiguration
    let idKey: SubmissionIDKey
    let instance: String
    let metrics: AggregatorMetrics
    /// The ledger, capture tokens and log it shares with the other parts.
    let flow: SubmissionFlow
    /// Its own transactions: the ledger's, then the token requests' (see ``commit(_:context:)``).
    let pool: PostgresPool
    /// The largest token request carrier it sends (the Kafka configuration's limit).
    let maxMessageBytes: Int

    package init(
        configuration: AggregatorConfiguration, idKey: SubmissionIDKey, flow: SubmissionFlow, instance: String,
        metrics: AggregatorMetrics, pool: PostgresPool, maxMessageBytes: Int = KafkaConfiguration.declared(\.maxMessageBytes)
    ) {
        self.maxMessageBytes = maxMessageBytes
        self.pool = pool
        self.flow = flow
        self.configuration = configuration
        self.idKey = idKey
        self.instance = instance
        self.metrics = metrics
    }

    /// The input this stage consumes.
    package var inputs: [StageInput] { [StageInput(topic: configuration.submissionInput, schemas: [Submission.schemaName])] }

    package func prepare(_ message: StageMessage, context: StageContext) async throws -> Prepared {
        let submission = try message.decode(Submission.self)
        let id = message.header.id.uuid
        // The id as written: answers carry it so (a uuid column reads back lower case).
        let row = SubmissionRecord(
            id: id, requestID: message.header.id, entries: submission.entries,
            capturedAt: submission.timestamp, correlationID: message.correlationID,
            replyTopic: message.replyTopic(or: configuration.submissionOutput),
            // Its schema held both to 64 hex digits.
            replyKey: message.kafka.key, attribution: (try? Attribution(of: submission)) ?? .none)
        let correlation = idKey.derive(from: id, "token-correlation").uuid
        func refused(_ reason: SubmissionResult.Reason) -> Ask {
            // Its row keeps no hashes: nothing of it is logged.
            let bare = SubmissionRecord(
                id: id, requestID: row.requestID, entries: [], capturedAt: row.capturedAt, correlationID: row.correlationID,
                replyTopic: row.replyTopic, replyKey: row.replyKey)
            return Ask(
                message: message, row: bare, digest: Data(message.contentDigest), provenance: Provenance([]), capture: nil,
                request: nil, correlationID: correlation, refusal: reason)
        }
        if submission.shape == .certificateBundle {
            return try await certificateAsk(submission, message, row: row, correlation: correlation, refused: refused)
        }
        if submission.shape == .cameraSubmission, submission.manufacturerCert?.authorityID != configuration.authorityID {
            return refused(.unknownAuthority)
        }
        guard let token = submission.token, !submission.entries.isEmpty else { return refused(.malformed) }
        // The request names nothing but the token; its ids are keyed from the submission's
        // (a submission sent again asks the same question, and nobody without the key can tie
        // the request to the submission) and its Kafka key is the correlation id, so neither
        // the authority nor the key says which image it is about.
        let request = Message(
            TokenRequest(token: token), id: idKey.derive(from: id, "token-request"), correlationID: correlation.lowercasedText,
            replyTo: configuration.tokenResults)
        return Ask(
            message: message, row: row, digest: Data(message.contentDigest),
            provenance: Provenance(submission.entries), capture: flow.captures.digest(token),
            request: try .json(topic: configuration.tokenRequests, key: correlation.lowercasedText, request),
            correlationID: correlation, refusal: nil)
    }

    /// What the commit decided for one recorded submission.
    enum Decision {
        case ask, inProgress, reused
        /// Refused without asking, for good; recorded.
        case refused(SubmissionResult.Reason)
        /// Its parent is known nowhere yet: it waits (``ParentWaits``).
        case waits
        case again(StageOutput)
        /// Takes its token's root's outcome (``CaptureTokens``).
        case derived(root: UUID)
    }

    package func commit(_ asks: [Prepared], context: StageCommitContext) async throws -> [StageVerdict] {
        let ledger = flow.ledger
        var followed = SubmissionLedger.Followed()
        let (decisions, answers) = try await pool.transaction { connection in
            // Judged before they are recorded, so a token's new root carries it in its own row
            // (``CaptureTokens``): first what these ids hold already.
            let seen = try await ledger.seen(asks.map(\.row.id), on: connection)
            let logged = try await flow.log
                .parentLevels(asks.filter { seen[$0.row.id] == nil }.map(\.provenance), on: connection)
            var first: [UUID: Data] = [:]
            var new: [Int] = []
            var decisions: [Decision] = asks.enumerated().map { index, ask in
                let id = ask.row.id
                if let recorded = seen[id] {
                    // Rows from before digests know no bytes: taken for a redelivery.
                    if let digest = recorded.digest, digest != ask.digest { return .reused }
                    guard let answer = recorded.answer else { return .inProgress }
                    return .again(answer)
                }
                // A redelivery of a new one within the batch, or other content under its id.
                if let digest = first[id] { return digest == ask.digest ? .inProgress : .reused }
                first[id] = ask.digest
                new.append(index)
                if let reason = ask.refusal { return .refused(reason) }
                // Asked about or derived: the capture tokens judge below.
                return ask.provenance.isValid ? .ask : .refused(.invalidProvenance)
            }
            let judged = try await judgeTokens(asks, &decisions, logged: logged, on: connection)
            // Recorded asking only if they ask; the others' transitions follow at once.
            let recorded = try await ledger.record(
                new.map { i in
                    guard case .ask = decisions[i] else { return (asks[i].row, asks[i].digest, nil) }
                    return (asks[i].row, asks[i].digest, asks[i].tokenAsk)
                }, captures: judged.roots, on: connection)
            guard recorded.count == new.count else { throw RecordedMeanwhile() }
            followed = try await follow(judged, on: connection)
            var refused: [(record: SubmissionRecord, reason: SubmissionResult.Reason)] = []
            var waiting: [ParentWaits.Wait] = []
            for (ask, decision) in zip(asks, decisions) {
                switch decision {
                case .refused(let reason): refused.append((ask.row, reason))
                case .waits: waiting.append(wait(ask))
                default: break
                }
            }
            try await flow.waits.record(waiting, on: connection)
            return (decisions, (try await ledger.refuse(refused, on: connection)).merging(followed.outputs) { a, _ in a })
        }
        if followed.queued { flow.writerBell.ring() }
        // The batch's questions go in carriers, sent with its last question's verdict: the
        // stage sends a unit's outputs together, after its transaction, before its offsets.
        let questions = zip(asks, decisions).compactMap { ask, decision in
            if case .ask = decision, let request = ask.request {
                (id: idKey.derive(from: ask.row.id, "token-request"), request: request)
            } else {
                nil
            }
        }
        let carriers = try carry(questions)
        let last = decisions.lastIndex { if case .ask = $0 { true } else { false } }
        return try zip(asks.indices, zip(asks, decisions)).map { index, item in
            let (ask, decision) = item
            switch decision {
            case .ask:
                return .outputs(index == last ? carriers : [])
            case .refused(let reason):
                metrics.submission(reason.rawValue)
                return .outputs(answers[ask.row.id].map { [$0] } ?? [])
            case .derived:
                metrics.derived.increment()
                return .outputs(answers[ask.row.id].map { [$0] } ?? [])
            case .inProgress, .waits:
                return .outputs([])
            case .again(let output):
                metrics.resubmitted.increment()
                return .outputs([output])
            case .reused:
                return .outputs(try reused(ask))
            }
        }
    }

    /// Another replica recorded one of a batch's new ids between its read and its insert
    /// (the same id on two partitions at once): the batch's transaction is undone and it is
    /// judged again, the id then seen.
    struct RecordedMeanwhile: RetryableError {}

    /// Token request carriers holding `requests` (DESIGN §2), keyed by their own ids: their
    /// ids derive from the requests' (themselves keyed, so the carrier ties no submission to
    /// its token either), and the same questions make the same carrier.
    private func carry(_ requests: [(id: MessageID, request: StageOutput)]) throws -> [StageOutput] {
        guard !requests.isEmpty else { return [] }
        let id = MessageID.derived(from: requests.map(\.id.text).joined(separator: ","), "token-request-batch")
        return try BatchCarrier.outputs(
            topic: configuration.tokenRequests, key: id.text, items: requests.map(\.request.value), maxBytes: maxMessageBytes,
            id: id
        ) { id in EnvelopeHeader(schema: TokenRequestBatch.schemaName, id: id, replyTo: configuration.tokenResults) }
    }

    /// The wait of a submission whose parent is known nowhere yet (``ParentWaits``).
    private func wait(_ ask: Ask) -> ParentWaits.Wait {
        let parents = ask.provenance.external.map(\.parent)
        return ParentWaits.Wait(
            submission: ask.row.id, request: ask.request!.value, correlationID: ask.correlationID,
            token: ask.capture, parents: parents.compactMap { try? Hex.decode($0, length: 32) },
            parentDigests: parents.map(flow.captures.digest(hash:)))
    }

    /// `id_reused` for a message whose id was recorded for other content, and a security event.
    /// Both ids are derived from the id and the content digest, so a redelivery of this message
    /// makes the same ones, and neither is the id of the first message's answer.
    private func reused(_ ask: Ask) throws -> [StageOutput] {
        let message = ask.message
        let name = "id-reused-\(Hex.encode(ask.digest))"
        metrics.submission(SubmissionResult.Reason.idReused.rawValue)
        metrics.securityEvents.increment()
        let answer = message.answer(
            SubmissionResult(reason: .idReused), id: MessageID.derived(from: message.header.id, name))
        let event = SecurityEvent(
            service: "aggregator", instance: instance, event: .idReused, severity: .warning, reason: "other_bytes")
        return [
            StageOutput(topic: ask.row.replyTopic, key: ask.row.replyKey, value: try JSONCoding.encode(answer)),
            try .json(
                topic: configuration.securityTopic, key: nil,
                Message(event, id: idKey.derive(from: ask.row.id, name), requestID: message.header.id)),
        ]
    }

    /// A schema violation is answered `malformed` on the submission's reply topic. The runtime
    /// refuses it before the intake records anything, so the answer is made from the message
    /// alone, each time (a redelivery gets the same id, status and reason, produced anew).
    package func answer(invalid message: StageMessage, violation: SchemaViolation) throws -> [StageOutput]? {
        [try rejected(message, .malformed)]
    }

    private func rejected(_ message: StageMessage, _ reason: SubmissionResult.Reason) throws -> StageOutput {
        metrics.submission(reason.rawValue)
        return try message.reply(SubmissionResult(reason: reason), or: configuration.submissionOutput)
    }
}
