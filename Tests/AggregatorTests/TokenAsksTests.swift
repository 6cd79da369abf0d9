import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime
import HallmarkTestSupport
import Logging
import Testing

@testable import AggregatorCore

/// A submission's token request in its own row (``SubmissionLedger`` as a ``RequestBook``),
/// against the real PostgreSQL: sent again when due and not before (nor while the answers run
/// behind it), joined by its correlation id until its submission's transition clears it, given
/// up at its deadline and claimed again until its answer was sent, and moved in from
/// `hallmark_pending` at the upgrade.
@Suite("Token requests in submissions", .serialized, .timeLimit(.minutes(2)))
struct TokenAsksTests {
    static let digest = Data(repeating: 7, count: 32)

    static func ledger(_ schema: String) -> SubmissionLedger {
        var asking = SubmissionLedger.Asking()
        (asking.topic, asking.resendAfter, asking.giveUpAfter) = ("requests", .seconds(60), .seconds(600))
        return SubmissionLedger(schema: schema, asking: asking)
    }

    static func ask(_ text: String) -> SubmissionLedger.TokenAsk { .init(correlationID: UUID(), request: Array(text.utf8)) }

    /// Makes every scheduled request of `schema` due now (its next sending, or with `late`, its
    /// deadline too, passed): no waiting in a test.
    static func makeDue(_ pool: PostgresPool, _ schema: String, late: Bool = false) async throws {
        try await pool.execute(
            """
            UPDATE \(unescaped: schema).submissions SET ask_next = now() - interval '1 second',
                ask_deadline = CASE WHEN \(late) THEN now() - interval '1 second' ELSE ask_deadline END
            WHERE ask_next IS NOT NULL
            """)
    }

    /// How many rows hold any part of a token request.
    static func asking(_ pool: PostgresPool, _ schema: String) async throws -> Int {
        let rows = try await pool.query(
            """
            SELECT count(*)::bigint FROM \(unescaped: schema).submissions
            WHERE asked IS NOT NULL OR ask IS NOT NULL OR ask_attempts IS NOT NULL OR ask_next IS NOT NULL
               OR ask_deadline IS NOT NULL
            """)
        return Int(try rows[0].column(0, as: Int64.self))
    }

    static func claim(_ ledger: SubmissionLedger, _ pool: PostgresPool) async throws -> DueRequests {
        try await pool.transaction { try await ledger.claimDue(limit: 10, on: $0) }
    }

    @Test func aTokenRequestLivesInItsSubmissionsRowUntilAnswered() async throws {
        let (pool, schema) = try await TransparencyLogTests.schema()
        let ledger = Self.ledger(schema)
        let items = (0..<4).map { _ in TransparencyLogTests.item([Hex.encode(try! SecureRandom.bytes(32))]) }
        let asks = (0..<4).map { Self.ask("request \($0)") }
        _ = try await pool.transaction {
            try await ledger.record(
                [(items[0], Self.digest, asks[0]), (items[1], Self.digest, asks[1]), (items[2], Self.digest, nil)], on: $0)
        }
        #expect(try await Self.asking(pool, schema) == 2)
        #expect(try await Self.claim(ledger, pool).resend.isEmpty, "sent again before its time")

        // Due: sent again as first sent (topic, key, bytes), then not before its doubled interval.
        try await Self.makeDue(pool, schema)
        let due = try await Self.claim(ledger, pool)
        #expect(due.expired.isEmpty)
        let expected = asks[0...1].map {
            "requests|\($0.correlationID.lowercasedText)|\(String(decoding: $0.request, as: UTF8.self))"
        }
        let sent = due.resend.map {
            "\($0.topic)|\(String(decoding: $0.key ?? [], as: UTF8.self))|\(String(decoding: $0.value, as: UTF8.self))"
        }
        #expect(Set(sent) == Set(expected) && sent.count == 2)
        #expect(try await Self.claim(ledger, pool).resend.isEmpty)
        let next = try await pool.query(
            """
            SELECT count(*)::bigint FROM \(unescaped: schema).submissions
            WHERE ask_attempts = 2 AND ask_next > now() + interval '100 seconds'
            """)
        #expect(try next[0].column(0, as: Int64.self) == 2)

        // The authority's answers join by correlation id; the transitions clear the requests, so
        // an answer delivered again joins nothing.
        let strange = UUID()
        let joined = try await pool.transaction {
            try await ledger.asked([asks[0].correlationID, asks[1].correlationID, strange], on: $0)
        }
        #expect(joined == [asks[0].correlationID: items[0].id, asks[1].correlationID: items[1].id])
        try await pool.transaction { connection in
            try await ledger.queue([items[0].id], on: connection)
            _ = try await ledger.reject([(items[1].id, .authenticationFailed)], on: connection)
        }
        #expect(try await pool.transaction { try await ledger.asked(asks.map(\.correlationID), on: $0) }.isEmpty)
        #expect(try await Self.asking(pool, schema) == 0)

        // Waiting for a parent, it is recorded asking nothing; asked once its parent came.
        _ = try await pool.transaction { try await ledger.record([(items[3], Self.digest)], on: $0) }
        #expect(try await Self.asking(pool, schema) == 0)
        let requests = try await pool.transaction { try await ledger.ask([(items[3].id, asks[3])], on: $0) }
        #expect(requests.map(\.key) == [Array(asks[3].correlationID.lowercasedText.utf8)] && requests[0].value == asks[3].request)
        #expect(
            try await pool.transaction { try await ledger.asked([asks[3].correlationID], on: $0) } == [
                asks[3].correlationID: items[3].id
            ])
        await TransparencyLogTests.drop(pool, schema)
    }

    /// A request past its deadline is given up: no answer joins it any more, and it is claimed
    /// again, its `validation_timeout` answer made again byte for byte, until it is forgotten
    /// (a crash before the answer was sent loses nothing). So is the answer of a derived
    /// submission that awaited it, answered with it.
    @Test func aRequestGivenUpIsClaimedUntilItsAnswerWasSent() async throws {
        let (pool, schema) = try await TransparencyLogTests.schema()
        let ledger = Self.ledger(schema)
        let item = TransparencyLogTests.item([Hex.encode(try SecureRandom.bytes(32))])
        let derived = TransparencyLogTests.item([Hex.encode(try SecureRandom.bytes(32))])
        let ask = Self.ask("request")
        _ = try await pool.transaction { connection in
            _ = try await ledger.record([(item, Self.digest, ask)], on: connection)
            _ = try await ledger.record([(derived, Self.digest)], on: connection)
            #expect(try await ledger.follow([(derived.id, item.id)], on: connection).outputs.isEmpty)
        }
        try await Self.makeDue(pool, schema, late: true)
        let due = try await Self.claim(ledger, pool)
        #expect(due.resend.isEmpty && due.expired.map { SubmissionLedger.question(of: $0)?.submission } == [item.id])
        #expect(try await pool.transaction { try await ledger.asked([ask.correlationID], on: $0) }.isEmpty)
        #expect(try await Self.claim(ledger, pool).expired.isEmpty, "claimed again before its next time")

        var answers: [[UInt8]] = []
        for _ in 0..<2 {
            try await Self.makeDue(pool, schema)
            let again = try await Self.claim(ledger, pool)
            #expect(again.resend.isEmpty && again.expired.count == 1)
            let outputs = try await ledger.timedOut(again.expired, on: pool)
            answers += outputs.map(\.value)
            if answers.count == 4 { try await pool.withConnection { try await ledger.forget(again.expired, on: $0) } }
        }
        // The root's answer, then its follower's, each made again byte for byte.
        #expect(answers.count == 4 && answers[0] == answers[2] && answers[1] == answers[3] && answers[0] != answers[1])
        for answer in answers {
            #expect(try JSONCoding.decode(Message<SubmissionResult>.self, from: answer).reason == .validationTimeout)
        }
        #expect(try await SubmissionLedgerTests.status(pool, schema, item.id) == .answered)
        #expect(try await SubmissionLedgerTests.status(pool, schema, derived.id) == .answered)
        #expect(try await Self.asking(pool, schema) == 0)
        try await Self.makeDue(pool, schema)
        let after = try await Self.claim(ledger, pool)
        #expect(after.resend.isEmpty && after.expired.isEmpty)
        await TransparencyLogTests.drop(pool, schema)
    }

    /// While the answers run behind (the freshest request they joined was sent long ago), a
    /// request due again waits that much longer: it is queued behind them, not lost. It goes
    /// once overdue by the lag. A resent request's answer says nothing of the lag; a fresh
    /// one brings it down again.
    @Test func aRequestIsNotSentAgainWhileTheAnswersRunBehindIt() async throws {
        let (pool, schema) = try await TransparencyLogTests.schema()
        let ledger = Self.ledger(schema)
        let items = (0..<3).map { _ in TransparencyLogTests.item([Hex.encode(try! SecureRandom.bytes(32))]) }
        let asks = (0..<3).map { Self.ask("request \($0)") }
        _ = try await pool.transaction { try await ledger.record(zip(items, asks).map { ($0, Self.digest, $1) }, on: $0) }
        func shift(_ item: Int, _ column: String, by seconds: Int) async throws {
            try await pool.execute(
                """
                UPDATE \(unescaped: schema).submissions SET \(unescaped: column) = now() - \(seconds) * interval '1 second'
                WHERE submission_id = \(items[item].id)
                """)
        }
        func join(_ item: Int) async throws {
            _ = try await pool.transaction { try await ledger.asked([asks[item].correlationID], on: $0) }
        }
        // The authority answers a request sent 100 s ago (its deadline 600 s after that).
        try await shift(0, "ask_deadline", by: 100 - 600)
        try await join(0)
        #expect(ledger.answerLag.current >= .seconds(99) && ledger.answerLag.current <= .seconds(110))
        try await shift(1, "ask_next", by: 50)
        #expect(try await Self.claim(ledger, pool).resend.isEmpty, "sent again while the answers run behind it")
        try await shift(1, "ask_next", by: 150)
        #expect(try await Self.claim(ledger, pool).resend.map(\.value) == [asks[1].request])
        try await join(1)
        #expect(ledger.answerLag.current >= .seconds(99), "a resent request's answer counted")
        try await join(2)
        #expect(ledger.answerLag.current < .seconds(5))
        await TransparencyLogTests.drop(pool, schema)
    }

    /// Requests pending in `hallmark_pending` at the upgrade move into their submissions' rows
    /// (both context forms), a given-up one still to be answered; one whose submission was
    /// answered already is dropped with the table.
    @Test func pendingRequestsMoveIntoTheirSubmissions() async throws {
        let (pool, schema, upgrade) = try await TransparencyLogTests.schema(without: 10)
        var logger = Logger(label: "token-asks-tests")
        logger.logLevel = .warning
        try await StageDatabase(pool: pool, schema: schema).migrate([PendingRequests.migration(schema: schema)], logger: logger)
        let ids = (0..<3).map { _ in UUID() }
        let correlations = (0..<3).map { _ in UUID() }
        let contexts = [
            try JSONCoding.encode(SubmissionLedger.Question(submission: ids[0])), Array(ids[1].lowercasedText.utf8),
            try JSONCoding.encode(SubmissionLedger.Question(submission: ids[2])),
        ]
        for i in 0..<3 {
            try await pool.execute(
                """
                INSERT INTO \(unescaped: schema).submissions
                    (submission_id, status, entries, captured_at, correlation_id, reply_topic, result)
                VALUES (\(ids[i]), \(i == 2 ? "answered" : "validating"), '\\x5b5d', 1, 'c', 'answers',
                        \(i == 2 ? Data("{}".utf8) : nil))
                """)
            try await pool.execute(
                """
                INSERT INTO \(unescaped: schema).hallmark_pending
                    (correlation_id, request_topic, request_key, request, context, expired, attempts, next_send_at, deadline)
                VALUES (\(correlations[i]), 'requests', NULL, \(Data("request \(i)".utf8)), \(Data(contexts[i])), \(i == 1), 3,
                        now() + interval '1 hour', now() + interval '2 hours')
                """)
        }
        try await upgrade()
        let gone = try await pool.query("SELECT to_regclass(\("\(schema).hallmark_pending")) IS NULL")
        #expect(try gone[0].column(0, as: Bool.self))
        let rows = try await pool.query(
            """
            SELECT submission_id, asked, ask, ask_attempts, ask_next IS NOT NULL, ask_deadline IS NOT NULL
            FROM \(unescaped: schema).submissions
            """)
        var moved: [UUID: (UUID?, Data?, Int32?, Bool, Bool)] = [:]
        for (id, asked, ask, attempts, next, deadline) in try rows.decode((UUID, UUID?, Data?, Int32?, Bool, Bool).self) {
            moved[id] = (asked, ask, attempts, next, deadline)
        }
        #expect(moved[ids[0]]?.0 == correlations[0] && moved[ids[0]]?.1 == Data("request 0".utf8) && moved[ids[0]]?.2 == 3)
        #expect(moved[ids[1]]?.0 == correlations[1] && moved[ids[1]]?.1 == nil && moved[ids[1]]?.3 == true)
        #expect(moved[ids[2]]?.0 == nil && moved[ids[2]]?.3 == false && moved[ids[2]]?.4 == false)

        // The retrier goes on from them: one sent again, one given up.
        let ledger = Self.ledger(schema)
        try await Self.makeDue(pool, schema)
        let due = try await Self.claim(ledger, pool)
        #expect(due.resend.map(\.value) == [Array("request 0".utf8)])
        #expect(due.expired.map { SubmissionLedger.question(of: $0)?.submission } == [ids[1]])
        await TransparencyLogTests.drop(pool, schema)
    }
}
