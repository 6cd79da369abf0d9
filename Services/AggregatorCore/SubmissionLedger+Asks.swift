import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime

/// A submission's token request lives in its row while the authority answers (`asked`, the
/// request's correlation id; `ask`, its message; `ask_attempts`, `ask_next`, `ask_deadline`),
/// recorded with the submission and cleared by the transition that answers it (``queue(_:on:)``,
/// ``reject(_:on:)``): no row of its own is written or deleted per request (#55).
///
/// ``RequestRetrier`` works through them as a ``RequestBook``: it sends a request again under its
/// own id until it is answered, and gives up at its deadline. A request given up loses its
/// message (`ask`), so no late answer joins it, and keeps its schedule until its
/// `validation_timeout` answer was sent (``forget(_:on:)``).
extension SubmissionLedger {
    /// How token requests are sent and given up.
    package struct Asking: Sendable {
        /// The authority's request topic.
        package var topic: String = AggregatorConfiguration.declared(\.tokenRequests)
        /// Send a request again after this long (doubling per attempt, up to 64 times).
        package var resendAfter: Duration = AggregatorConfiguration.declared(\.resendAfter)
        /// Give up after this long: the submission is answered `validation_timeout`.
        package var giveUpAfter: Duration = AggregatorConfiguration.declared(\.giveUpAfter)

        package init() {}

        package init(_ configuration: AggregatorConfiguration) {
            (topic, resendAfter, giveUpAfter) =
                (configuration.tokenRequests, configuration.resendAfter, configuration.giveUpAfter)
        }

        /// A new request's first resend: after ``resendAfter``, or at its deadline if sooner.
        var firstSending: PostgresQuery { "now() + least(\(interval: resendAfter), \(interval: giveUpAfter))" }
        /// A new request's deadline.
        var deadline: PostgresQuery { "now() + \(interval: giveUpAfter)" }
    }

    /// A token request to keep with its submission until the authority answers it.
    package struct TokenAsk: Sendable, Equatable {
        /// The request's correlation id, also its Kafka key (lower-case text).
        package let correlationID: UUID
        /// The request message, as sent.
        package let request: [UInt8]

        package init(correlationID: UUID, request: [UInt8]) {
            self.correlationID = correlationID
            self.request = request
        }
    }

    /// The assignments that end a submission's token request with its transition: a request
    /// given up (its message already gone) keeps its schedule until its answer was sent.
    static var askAnswered: PostgresQuery {
        """
        asked = NULL, ask = NULL, ask_attempts = CASE WHEN s.ask IS NULL THEN s.ask_attempts END,
        ask_next = CASE WHEN s.ask IS NULL THEN s.ask_next END,
        ask_deadline = CASE WHEN s.ask IS NULL THEN s.ask_deadline END
        """
    }

    /// Asks the authority about these `validating` submissions (their parents came:
    /// ``ParentWaits``). Returns the requests to send once the transaction commits.
    func ask(_ asks: [(submission: UUID, ask: TokenAsk)], on connection: PostgresConnection) async throws -> [StageOutput] {
        guard !asks.isEmpty else { return [] }
        let update: PostgresQuery = """
            UPDATE \(unescaped: schema).submissions s
            SET asked = a.c, ask = a.r, ask_attempts = 1, ask_next = \(asking.firstSending), ask_deadline = \(asking.deadline)
            FROM unnest(\(PostgresArray(asks.map(\.submission))), \(PostgresArray(asks.map(\.ask.correlationID))),
                        \(PostgresArray(asks.map { Data($0.ask.request) }))) AS a(i, c, r)
            WHERE s.submission_id = a.i AND s.status = 'validating'
            """
        try await connection.execute(Self.keyedUpdate(update))
        return asks.map { request(correlationID: $0.ask.correlationID, value: $0.ask.request) }
    }

    /// The submissions whose token requests these correlation ids answer, by correlation id:
    /// those still asking, locked until the transaction ends, so an answer delivered twice at
    /// once joins once (the other transaction reads the row again after this one, and it asks
    /// no more). Planned at each run (``keyedUpdate(_:)``). Records how old the freshest of
    /// them sent once was (``answerLag``; it was sent `giveUpAfter` before its deadline).
    func asked(_ correlations: [UUID], on connection: PostgresConnection) async throws -> [UUID: UUID] {
        guard !correlations.isEmpty else { return [:] }
        let select: PostgresQuery = """
            SELECT asked, submission_id,
                   CASE WHEN ask_attempts = 1
                        THEN (extract(epoch FROM now() - ask_deadline + \(interval: asking.giveUpAfter)) * 1000)::int8 END
            FROM \(unescaped: schema).submissions
            WHERE asked = ANY(\(PostgresArray(correlations))) AND ask IS NOT NULL AND status = 'validating'
            ORDER BY submission_id FOR UPDATE
            """
        let rows = try await connection.query(Self.keyedUpdate(select)).decode((UUID, UUID, Int64?).self)
        answerLag.observe(ages: rows.lazy.compactMap(\.2))
        return Dictionary(rows.map { ($0.0, $0.1) }) { first, _ in first }
    }

    /// A token request as sent: to the authority, keyed by its correlation id.
    func request(correlationID: UUID, value: [UInt8]) -> StageOutput {
        StageOutput(topic: asking.topic, key: Array(correlationID.lowercasedText.utf8), value: value)
    }

    /// Token requests the authority never answered in time (``RequestRetrier``): their
    /// submissions are answered `validation_timeout`, in one transaction; the outputs to send.
    /// One answered already (claimed again: its answer may not have been sent) gets its
    /// recorded answer, byte for byte, and so do the derived submissions answered with it.
    func timedOut(_ requests: [PendingRequest], on pool: PostgresPool) async throws -> [StageOutput] {
        let ids = requests.compactMap { Self.question(of: $0)?.submission }
        return try await pool.transaction { connection in
            let recorded = try await seen(ids, on: connection).compactMapValues(\.answer)
            let answers = try await reject(
                ids.filter { recorded[$0] == nil }.map { ($0, .validationTimeout) }, on: connection)
            let followers = try await answeredFollowers(of: ids.filter { recorded[$0] != nil }, on: connection)
            return ids.flatMap { id in recorded[id].map { [$0] + (followers[id] ?? []) } ?? answers[id] ?? [] }
        }
    }

    /// The submission a token request given up asked about; nil for a context that is none.
    static func question(of request: PendingRequest) -> Question? {
        if let question = try? request.context(as: Question.self) { return question }
        // Kept in `hallmark_pending` before its context was typed: the submission id as text.
        return UUID(text: String(decoding: request.context, as: UTF8.self)).map(Question.init(submission:))
    }
}

extension SubmissionLedger: RequestBook {
    package func claimDue(limit: Int, on connection: PostgresConnection) async throws -> DueRequests {
        // Due once overdue by how far the answers run behind too (``AnswerLag``): its answer
        // may still be on its way. So is giving up, a request's last `ask_next` being its
        // deadline. One range of the `ask_next` index either way.
        let rows = try await connection.query(
            """
            SELECT submission_id, asked, ask, ask_attempts, created_at, COALESCE(ask_deadline <= now(), true)
            FROM \(unescaped: schema).submissions
            WHERE ask_next <= now() - \(interval: answerLag.current)
            ORDER BY ask_next LIMIT \(limit) FOR UPDATE SKIP LOCKED
            """)
        var due = DueRequests(), resend: [UUID] = [], expired: [UUID] = []
        for row in rows {
            let (id, asked, ask, attempts, created, late) = try row.decode((UUID, UUID?, Data?, Int32?, Date, Bool).self)
            if let asked, let ask, !late {
                due.resend.append(request(correlationID: asked, value: [UInt8](ask)))
                resend.append(id)
            } else {
                due.expired.append(
                    PendingRequest(
                        correlationID: asked ?? id, context: try JSONCoding.encode(Question(submission: id)),
                        attempts: Int(attempts ?? 0), createdAt: created))
                expired.append(id)
            }
        }
        if !resend.isEmpty {
            try await connection.execute(
                """
                UPDATE \(unescaped: schema).submissions
                SET ask_attempts = ask_attempts + 1,
                    ask_next = least(\(Self.nextSending(afterAttempts: "ask_attempts", resendAfter: asking.resendAfter)), ask_deadline)
                WHERE submission_id = ANY(\(PostgresArray(resend)))
                """)
        }
        if !expired.isEmpty {
            // No answer joins them now; claimed again, their answers sent again, until forgotten.
            try await connection.execute(
                """
                UPDATE \(unescaped: schema).submissions
                SET ask = NULL, ask_next = now() + \(interval: asking.resendAfter)
                WHERE submission_id = ANY(\(PostgresArray(expired)))
                """)
        }
        return due
    }

    package func forget(_ expired: [PendingRequest], on connection: PostgresConnection) async throws {
        let ids = expired.compactMap { Self.question(of: $0)?.submission }
        guard !ids.isEmpty else { return }
        try await connection.execute(
            """
            UPDATE \(unescaped: schema).submissions
            SET asked = NULL, ask_attempts = NULL, ask_next = NULL, ask_deadline = NULL
            WHERE submission_id = ANY(\(PostgresArray(ids))) AND ask IS NULL
            """)
    }
}
