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
/// commits. The authority's answer is joined by ``TokenResultJoiner``. A submission whose
/// hashes break the provenance rule (``Provenance``) is recorded and answered
/// `invalid_provenance` without asking.
///
/// Idempotent by submission id without the runtime's inbox. A redelivery (the same id with the
/// same content, by the ``StageMessage/contentDigest`` recorded with the submission) is not
/// asked about again; if it has been answered, the recorded answer is sent again. The same id
/// with other content is answered `id_reused` and raises a security event; nothing of it is
/// logged.
package struct SubmissionIntake: StageProcessor {
    /// What phase 1 made of a submission.
    package enum Prepared: Sendable {
        /// Answered at once.
        case answer(StageOutput)
        /// To record, then validate.
        case validate(Ask)
    }

    /// A submission to record and the request to the authority about its token.
    package struct Ask: Sendable {
        let message: StageMessage
        let row: SubmissionRecord
        /// The message's ``StageMessage/contentDigest``.
        let digest: Data
        let provenance: Provenance
        /// The bundle's token (what ``CaptureTokens`` knows it by).
        let token: BirthmarkToken?
        let request: StageOutput
        let correlationID: UUID
    }

    let configuration: AggregatorConfiguration
    let idKey: SubmissionIDKey
    let instance: String
    let pending: PendingRequests
    let metrics: AggregatorMetrics
    /// Derived images under their capture's token.
    let captures: CaptureTokens
    /// Called after a batch queued derived submissions (wakes the log writer).
    let writer: (@Sendable () -> Void)?
    /// Its own transactions: the ledger's, then the token requests' (see ``commit(_:context:)``).
    let pool: PostgresPool

    package init(
        configuration: AggregatorConfiguration, idKey: SubmissionIDKey, instance: String, pending: PendingRequests,
        metrics: AggregatorMetrics, pool: PostgresPool, wake writer: (@Sendable () -> Void)? = nil
    ) {
        self.pool = pool
        self.captures = CaptureTokens(schema: configuration.schema, key: idKey, window: configuration.captureWindow)
        self.writer = writer
        self.configuration = configuration
        self.idKey = idKey
        self.instance = instance
        self.pending = pending
        self.metrics = metrics
    }

    /// The input this stage consumes.
    package var inputs: [StageInput] { [StageInput(topic: configuration.submissionInput, schemas: [Submission.schemaName])] }

    package func prepare(_ message: StageMessage, context: StageContext) async throws -> Prepared {
        let submission = try message.decode(Submission.self)
        let id = message.header.id.uuid
        if submission.shape == .cameraSubmission, submission.manufacturerCert?.authorityID != configuration.authorityID {
            return .answer(try rejected(message, .unknownAuthority))
        }
        guard let token = submission.token, !submission.entries.isEmpty else { return .answer(try rejected(message, .malformed)) }
        // The request names nothing but the token; its ids are keyed from the submission's
        // (a submission sent again asks the same question, and nobody without the key can tie
        // the request to the submission) and its Kafka key is the correlation id, so neither
        // the authority nor the key says which image it is about.
        let correlation = idKey.derive(from: id, "token-correlation").uuid
        let request = Message(
            TokenRequest(token: token), id: idKey.derive(from: id, "token-request"), correlationID: correlation.lowercasedText,
            replyTo: configuration.tokenResults)
        // The id as written: answers carry it so (a uuid column reads back lower case).
        let row = SubmissionRecord(
            id: id, requestID: message.header.id, entries: submission.entries,
            capturedAt: submission.timestamp, correlationID: message.correlationID,
            replyTopic: message.replyTopic(or: configuration.submissionOutput),
            replyKey: message.kafka.key)
        return .validate(
            Ask(
                message: message, row: row, digest: Data(message.contentDigest),
                provenance: Provenance(submission.entries), token: token,
                request: try .json(topic: configuration.tokenRequests, key: correlation.lowercasedText, request),
                correlationID: correlation))
    }

    /// What the commit decided for one recorded submission.
    private enum Decision {
        case ask, invalidProvenance, inProgress, reused
        case again(StageOutput)
        /// Takes its token's root's outcome (``CaptureTokens``).
        case derived(root: UUID)
    }

    package func commit(_ batch: [Prepared], context: StageCommitContext) async throws -> [StageVerdict] {
        var asks: [Ask] = []
        for case .validate(let ask) in batch { asks.append(ask) }
        let ledger = SubmissionLedger(schema: configuration.schema)
        var followed = SubmissionLedger.Followed()
        let (decisions, refused) = try await pool.transaction { connection in
            let fresh = try await ledger.record(asks.map { ($0.row, $0.digest) }, on: connection)
            let seen = try await ledger.seen(asks.map(\.row.id).filter { fresh[$0] == nil }, on: connection)
            let logged = try await loggedLevels(asks.filter { fresh[$0.row.id] != nil }, on: connection)
            var taken = Set<UUID>()
            var decisions: [Decision] = asks.map { ask in
                let id = ask.row.id
                if let digest = fresh[id] {
                    // The row's own message (the first of the batch with its id), a redelivery
                    // of it within the batch, or other content under its id.
                    guard digest == ask.digest else { return .reused }
                    guard taken.insert(id).inserted else { return .inProgress }
                    // Asked about or derived: the capture tokens judge below.
                    return ask.provenance.isValid ? .ask : .invalidProvenance
                }
                let recorded = seen[id]
                // Rows from before digests know no bytes: taken for a redelivery.
                if let digest = recorded?.digest, digest != ask.digest { return .reused }
                guard let answer = recorded?.answer else { return .inProgress }
                return .again(answer)
            }
            followed = try await judgeTokens(asks, &decisions, logged: logged, on: connection)
            var requests: [(request: StageOutput, correlationID: UUID, context: SubmissionLedger.Question)] = []
            var refused: [SubmissionRecord] = []
            for (ask, decision) in zip(asks, decisions) {
                switch decision {
                case .ask: requests.append((ask.request, ask.correlationID, .init(submission: ask.row.id)))
                case .invalidProvenance: refused.append(ask.row)
                default: break
                }
            }
            try await pending.record(requests, on: connection)
            return (decisions, (try await ledger.refuse(refused, on: connection)).merging(followed.outputs) { a, _ in a })
        }
        if followed.queued { writer?() }
        var next = decisions.makeIterator()
        return try batch.map { prepared in
            guard case .validate(let ask) = prepared else {
                if case .answer(let output) = prepared { return .outputs([output]) }
                return .outputs([])
            }
            switch next.next()! {
            case .ask:
                return .outputs([ask.request])
            case .invalidProvenance:
                metrics.submission(SubmissionResult.Reason.invalidProvenance.rawValue)
                return .outputs(refused[ask.row.id].map { [$0] } ?? [])
            case .derived:
                metrics.derived.increment()
                return .outputs(refused[ask.row.id].map { [$0] } ?? [])
            case .inProgress:
                return .outputs([])
            case .again(let output):
                metrics.resubmitted.increment()
                return .outputs([output])
            case .reused:
                return .outputs(try reused(ask))
            }
        }
    }

    /// Judges the asks decided `.ask` so far by their tokens (``CaptureTokens``): a token's root
    /// and other reuses stay `.ask` when their parents are in the log, derived submissions
    /// become `.derived` and follow their root. Records the roots and hashes.
    private func judgeTokens(
        _ asks: [Ask], _ decisions: inout [Decision], logged: [String: Int], on connection: PostgresConnection
    ) async throws -> SubmissionLedger.Followed {
        var uses: [(index: Int, use: CaptureTokens.Use)] = []
        for (i, ask) in asks.enumerated() {
            guard case .ask = decisions[i] else { continue }
            guard let token = ask.token.flatMap(captures.digest) else {
                if !ask.provenance.holds(in: logged) { decisions[i] = .invalidProvenance }
                continue
            }
            let use = CaptureTokens.Use(
                submission: ask.row.id, token: token,
                hashes: ask.row.entries.map { (captures.digest(hash: $0.imageHash), $0.modificationLevel) },
                external: ask.provenance.external.map { (captures.digest(hash: $0.parent), $0.level) },
                holdsInLog: ask.provenance.holds(in: logged))
            uses.append((i, use))
        }
        guard !uses.isEmpty else { return SubmissionLedger.Followed() }
        let known = try await captures.lockAndLoad(uses.map(\.use.token), on: connection)
        let judged = CaptureTokens.judge(uses.map(\.use), known: known)
        var derived: [(id: UUID, root: UUID)] = []
        for ((i, use), verdict) in zip(uses, judged.verdicts) {
            switch verdict {
            case .ask: continue
            case .invalidProvenance: decisions[i] = .invalidProvenance
            case .derived(let root):
                decisions[i] = .derived(root: root)
                derived.append((use.submission, root))
            }
        }
        try await captures.record(roots: judged.roots, hashes: judged.hashes, on: connection)
        return try await SubmissionLedger(schema: configuration.schema).follow(derived, on: connection)
    }

    /// The logged level of every parent outside its submission that these submissions name.
    private func loggedLevels(_ asks: [Ask], on connection: PostgresConnection) async throws -> [String: Int] {
        let parents = Set(asks.flatMap { $0.provenance.external.map(\.parent) })
        guard !parents.isEmpty else { return [:] }
        let leaves = try await LogStore(schema: configuration.schema)
            .leaves(parents.compactMap { try? Hex.decode($0, length: 32) }, on: connection)
        return Dictionary(leaves.map { (Hex.encode($0.key), Int($0.value.leaf.modificationLevel)) }) { first, _ in first }
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

    /// A schema violation is answered `malformed` on the submission's reply topic.
    package func answer(invalid message: StageMessage, violation: SchemaViolation) throws -> [StageOutput]? {
        [try rejected(message, .malformed)]
    }

    private func rejected(_ message: StageMessage, _ reason: SubmissionResult.Reason) throws -> StageOutput {
        metrics.submission(reason.rawValue)
        return try message.reply(SubmissionResult(reason: reason), or: configuration.submissionOutput)
    }
}
