import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime

/// A submission's life, in `submissions` (``AggregatorMigrations``): the one owner of the table,
/// its states and every transition, and the one maker of a submission's final answer.
///
/// ```
/// record (asking) ─▶ validating ─ queue (the authority's PASS) ─▶ queued ─ answerLogged (the log) ─▶ answered ─ sweep ─▶ gone
///                │                                                                              ▲
///                ├─ refuse (invalid_provenance, malformed…) · reject (the authority's FAIL) · timedOut ┘
///                └─ withdraw (its parent never came: ParentWaits) ─▶ gone
/// ```
///
/// A derived submission (``CaptureTokens``) stays `validating` while it `awaits` its token's
/// root, and follows the root's transition: queued with it, or rejected with its reason
/// (``follow(_:on:)``).
///
/// Every answer is recorded with its row, so the same submission sent again gets it again, and
/// every answer of one submission has the same id (``resultID(_:)``). The row keeps the hashes,
/// the capture time and where the answer goes, and while the authority answers, the token
/// request (``claimDue(limit:on:)``), cleared with the answer; never a device signature, GPS or
/// owner hash.
package struct SubmissionLedger: Sendable {
    /// Where a submission is in its life (the `status` column). The statements below write these
    /// values as SQL literals, not bound parameters, so the planner matches the partial index on
    /// `status` (`submissions_queued`) in every cached plan; this type's files are the only
    /// ones that name them (`SubmissionLedgerTests` checks each against the table's constraint).
    package enum Status: String, Sendable, CaseIterable {
        /// Recorded; its token is with the authority.
        case validating
        /// Passed; waiting for the log writer (in `queued_seq` order).
        case queued
        /// Its final answer is recorded (`result`).
        case answered
    }

    /// The submission a token request given up asked about, as ``RequestRetrier`` hands it to
    /// ``timedOut(_:on:)`` (and as `hallmark_pending` kept it before version 10).
    package struct Question: Codable, Sendable, Equatable {
        package let submission: UUID
    }

    let schema: String
    /// How its token requests are sent again and given up (``claimDue(limit:on:)``).
    let asking: Asking
    /// How far behind the authority's answers run: no request is sent again before it is overdue
    /// by this much (shared by the ledger's copies).
    package let answerLag = AnswerLag()

    package init(schema: String, asking: Asking = Asking()) {
        self.schema = schema
        self.asking = asking
    }

    /// The id of a submission's final answer: derived, so every path that answers it (and
    /// every re-send) gives the same id.
    package static func resultID(_ submission: UUID) -> MessageID {
        MessageID.derived(from: submission.lowercasedText, "result")
    }

    /// Where a submission's answer goes.
    struct Destination: Sendable {
        /// The submission's id as it wrote it.
        let requestID: MessageID
        let correlationID: String
        let topic: String
        let key: [UInt8]?
        /// A certificate bundle's signed form, which an accepted or duplicate answer names.
        var signedFields: String? = nil

        init(requestID: MessageID, correlationID: String, topic: String, key: [UInt8]?) {
            (self.requestID, self.correlationID, self.topic, self.key) = (requestID, correlationID, topic, key)
        }

        init(_ record: SubmissionRecord) {
            self.init(
                requestID: record.requestID, correlationID: record.correlationID, topic: record.replyTopic,
                key: record.replyKey)
            signedFields = record.signedFields
        }
    }

    /// A submission's final answer, refused with `reason`.
    static func result(
        _ id: UUID, to destination: Destination, reason: SubmissionResult.Reason
    ) -> Message<SubmissionResult> {
        Message(SubmissionResult(reason: reason), header: header(id, to: destination))
    }

    /// A submission's final answer once the log placed its hashes.
    static func result(
        _ id: UUID, to destination: Destination, leaves: [SubmissionResult.Leaf], treeSize: UInt64
    )
        -> Message<SubmissionResult>
    {
        Message(
            SubmissionResult(leaves: leaves, treeSize: treeSize, signedFields: destination.signedFields),
            header: header(id, to: destination))
    }

    /// The header of a submission's final answer.
    private static func header(_ id: UUID, to destination: Destination) -> EnvelopeHeader {
        .answer(
            SubmissionResult.schemaName, id: resultID(id), to: destination.requestID,
            correlationID: destination.correlationID)
    }

    // MARK: validating

    /// Records new submissions, `validating`, with the digest of each one's message, and the
    /// token request each asks the authority, if any (sent again until answered:
    /// ``claimDue(limit:on:)``), and the capture token each new root carries (``CaptureTokens``:
    /// the keyed digests of its token and its hashes, by submission); returns the ids that were
    /// new with the digest recorded for each (a batch may hold an id twice: one row wins). The
    /// others were seen before.
    func record(
        _ rows: [(row: SubmissionRecord, digest: Data, ask: TokenAsk?)],
        captures: [UUID: (token: Data, hashes: Data)] = [:], on connection: PostgresConnection
    ) async throws
        -> [UUID: Data]
    {
        guard !rows.isEmpty else { return [:] }
        let entries = try rows.map { Data(try JSONCoding.encode($0.row.entries)) }
        let asked = rows.map(\.ask)
        let carried = rows.map { captures[$0.row.id] }
        // Where a row asks nothing, its request is empty and its id (any) unused.
        let result = try await connection.query(
            """
            INSERT INTO \(unescaped: schema).submissions
                (submission_id, status, entries, captured_at, correlation_id, reply_topic, reply_key, request_id, digest,
                 asked, ask, ask_attempts, ask_next, ask_deadline, capture_token, capture_hashes, gps_hash, owner_hash,
                 signed_fields)
            SELECT i, 'validating', e, c, r, t, NULLIF(k, ''::bytea), q, d,
                   CASE WHEN b <> ''::bytea THEN a END, NULLIF(b, ''::bytea), CASE WHEN b <> ''::bytea THEN 1 END,
                   CASE WHEN b <> ''::bytea THEN \(asking.firstSending) END, CASE WHEN b <> ''::bytea THEN \(asking.deadline) END,
                   NULLIF(g, ''::bytea), CASE WHEN g <> ''::bytea THEN h END, NULLIF(x, ''::bytea), NULLIF(o, ''::bytea),
                   NULLIF(f, '')
            FROM unnest(\(PostgresArray(rows.map(\.row.id))), \(PostgresArray(entries)),
                        \(PostgresArray(rows.map { Int64(clamping: $0.row.capturedAt) })),
                        \(PostgresArray(rows.map(\.row.correlationID))), \(PostgresArray(rows.map(\.row.replyTopic))),
                        \(PostgresArray(rows.map { Data($0.row.replyKey ?? []) })), \(PostgresArray(rows.map(\.row.requestID.text))),
                        \(PostgresArray(rows.map(\.digest))), \(PostgresArray(asked.map { $0?.correlationID ?? UUID() })),
                        \(PostgresArray(asked.map { Data($0?.request ?? []) })),
                        \(PostgresArray(carried.map { $0?.token ?? Data() })), \(PostgresArray(carried.map { $0?.hashes ?? Data() })),
                        \(PostgresArray(rows.map { $0.row.attribution.gpsHash ?? Data() })),
                        \(PostgresArray(rows.map { $0.row.attribution.ownerHash ?? Data() })),
                        \(PostgresArray(rows.map { $0.row.signedFields ?? "" })))
                AS s(i, e, c, r, t, k, q, d, a, b, g, h, x, o, f)
            ON CONFLICT (submission_id) DO NOTHING
            RETURNING submission_id, digest
            """)
        return Dictionary(try result.decode((UUID, Data).self)) { first, _ in first }
    }

    /// Records new submissions that ask nothing yet (as the `record` above).
    func record(
        _ rows: [(row: SubmissionRecord, digest: Data)], on connection: PostgresConnection
    ) async throws
        -> [UUID: Data]
    {
        try await record(rows.map { ($0.row, $0.digest, nil) }, on: connection)
    }

    /// What is recorded of a submission seen before: the digest of the message first recorded
    /// under its id (nil for rows from before digests), and its answer, with where it goes,
    /// once it has one.
    struct Seen: Sendable {
        let digest: Data?
        let answer: StageOutput?
    }

    /// The recorded digests and answers of these submissions. Planned at each run
    /// (``keyedUpdate(_:)``): the intake reads every batch's ids so, from the first trickle into
    /// a young table on.
    func seen(_ ids: [UUID], on connection: PostgresConnection) async throws -> [UUID: Seen] {
        guard !ids.isEmpty else { return [:] }
        let select: PostgresQuery = """
            SELECT submission_id, digest, reply_topic, reply_key, result FROM \(unescaped: schema).submissions
            WHERE submission_id = ANY(\(PostgresArray(ids)))
            """
        let rows = try await connection.query(Self.keyedUpdate(select))
        var out: [UUID: Seen] = [:]
        for (id, digest, topic, key, result) in try rows.decode((UUID, Data?, String, Data?, Data?).self) {
            out[id] = Seen(
                digest: digest,
                answer: result.map { StageOutput(topic: topic, key: key.map { [UInt8]($0) }, value: [UInt8]($0)) })
        }
        return out
    }

    // MARK: validating → queued

    /// The authority passed these submissions' tokens: they wait for the log, in this order,
    /// and the submissions awaiting them after them.
    func queue(_ ids: [UUID], on connection: PostgresConnection) async throws {
        try await queueOnly(ids, on: connection)
        // A statement of its own, after the roots' rows are locked: it sees every derived
        // submission recorded before (see ``follow(_:on:)``).
        try await queueOnly(try await followers(of: ids, on: connection).map(\.id), on: connection)
    }

    func queueOnly(_ ids: [UUID], on connection: PostgresConnection) async throws {
        guard !ids.isEmpty else { return }
        // Numbered in a materialized, ordered scan: nextval in a query the planner may flatten
        // or sort after would number them in any order. Planned at each run: a plan kept from
        // when the table was small scanned it once per id (``Self/keyedUpdate(_:)``).
        let update: PostgresQuery = """
            WITH ordered AS MATERIALIZED (
                SELECT i FROM unnest(\(PostgresArray(ids))) WITH ORDINALITY AS u(i, o) ORDER BY o),
            numbered AS MATERIALIZED (SELECT i, nextval('\(unescaped: schema).queued_seq') AS n FROM ordered)
            UPDATE \(unescaped: schema).submissions s SET status = 'queued', queued_seq = q.n, \(Self.askAnswered)
            FROM numbered q
            WHERE s.submission_id = q.i AND s.status = 'validating'
            """
        try await connection.execute(Self.keyedUpdate(update))
    }

    // MARK: → answered

    /// The log placed these queued submissions' hashes: their answers, recorded and returned as
    /// the outputs to send, in order.
    func answerLogged(
        _ placed: [(record: SubmissionRecord, leaves: [SubmissionResult.Leaf])], treeSize: UInt64,
        on connection: PostgresConnection
    ) async throws -> (results: [Message<SubmissionResult>], outputs: [StageOutput]) {
        let answers = placed.map { record, leaves in
            let to = Destination(record)
            return (record.id, to, Self.result(record.id, to: to, leaves: leaves, treeSize: treeSize))
        }
        return (answers.map(\.2), try await answer(answers, on: connection))
    }

    /// Recorded submissions refused without asking the authority, for good: their hashes break
    /// the provenance rule (`invalid_provenance`), or the intake could not ask (`malformed`,
    /// `unknown_authority`). The outputs by submission.
    func refuse(
        _ records: [(record: SubmissionRecord, reason: SubmissionResult.Reason)], on connection: PostgresConnection
    ) async throws -> [UUID: StageOutput] {
        let answers = records.map { record, reason in
            let to = Destination(record)
            return (record.id, to, Self.result(record.id, to: to, reason: reason))
        }
        return Dictionary(zip(answers.map(\.0), try await answer(answers, on: connection))) { first, _ in first }
    }

    /// Answers submissions `rejected` with their reasons (those with no row are skipped): the
    /// authority's FAIL, or `validation_timeout`; and the submissions awaiting them, with the
    /// same reason. Returns the outputs by submission: its answer, then its followers'.
    func reject(
        _ rejections: [(id: UUID, reason: SubmissionResult.Reason)], on connection: PostgresConnection
    )
        async throws -> [UUID: [StageOutput]]
    {
        var out = try await rejectOnly(rejections, on: connection).mapValues { [$0] }
        let reasons = Dictionary(rejections.map { ($0.id, $0.reason) }) { first, _ in first }
        let followers = try await followers(of: rejections.map(\.id), on: connection)
        let answers = try await rejectOnly(followers.map { ($0.id, reasons[$0.root]!) }, on: connection)
        for follower in followers { out[follower.root, default: []] += answers[follower.id].map { [$0] } ?? [] }
        return out
    }

    func rejectOnly(
        _ rejections: [(id: UUID, reason: SubmissionResult.Reason)], on connection: PostgresConnection
    )
        async throws -> [UUID: StageOutput]
    {
        let destinations = try await destinations(rejections.map(\.id), on: connection)
        let answers = rejections.compactMap { id, reason in
            destinations[id].map { (id, $0, Self.result(id, to: $0, reason: reason)) }
        }
        return Dictionary(zip(answers.map(\.0), try await answer(answers, on: connection))) { first, _ in first }
    }

    /// Where each submission's answer goes.
    func destinations(_ ids: [UUID], on connection: PostgresConnection) async throws -> [UUID: Destination] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await connection.query(
            """
            SELECT submission_id, COALESCE(request_id, submission_id::text), correlation_id, reply_topic, reply_key
            FROM \(unescaped: schema).submissions WHERE submission_id = ANY(\(PostgresArray(ids)))
            """)
        var out: [UUID: Destination] = [:]
        for (id, request, correlation, topic, key) in try rows.decode((UUID, String, String, String, Data?).self) {
            out[id] = Destination(
                requestID: MessageID(request) ?? MessageID(id), correlationID: correlation, topic: topic,
                key: key.map { [UInt8]($0) })
        }
        return out
    }

    /// Records final answers (so the same id asked again gets them again) and returns each as
    /// the output to send, in the given order. The submission's ``Attribution`` goes: its
    /// leaves keep it, if it logged any.
    private func answer(
        _ answers: [(UUID, Destination, Message<SubmissionResult>)], on connection: PostgresConnection
    )
        async throws -> [StageOutput]
    {
        guard !answers.isEmpty else { return [] }
        let values = try answers.map { Data(try JSONCoding.encode($0.2)) }
        let update: PostgresQuery = """
            UPDATE \(unescaped: schema).submissions s
            SET status = 'answered', result = a.result, queued_seq = NULL, gps_hash = NULL, owner_hash = NULL,
                \(Self.askAnswered)
            FROM unnest(\(PostgresArray(answers.map(\.0))), \(PostgresArray(values))) AS a(id, result)
            WHERE s.submission_id = a.id
            """
        try await connection.execute(Self.keyedUpdate(update))
        return zip(answers, values).map { StageOutput(topic: $0.1.topic, key: $0.1.key, value: [UInt8]($1)) }
    }

    // MARK: answered → gone

    /// Deletes up to `limit` answered submissions older than `retention`; returns how many went.
    /// Only answers go: a submission still validating or queued is never touched. A submission
    /// sent again after its row went is validated again and, its hash being in the log,
    /// answered `duplicate` with its leaf index. No index on the age: the sweep's scan is
    /// cheaper than one more index entry on every answer, the log's hottest write.
    func sweepAnswered(olderThan retention: Duration, limit: Int, on pool: PostgresPool) async throws -> Int {
        try await pool.execute(
            """
            DELETE FROM \(unescaped: schema).submissions WHERE submission_id IN (
                SELECT submission_id FROM \(unescaped: schema).submissions
                WHERE status = 'answered'
                  AND created_at < now() - \(interval: retention)
                LIMIT \(limit))
            """)
    }
}
