import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime
import HallmarkTestSupport
import Testing

@testable import AggregatorCore

/// A submission's life through ``SubmissionLedger`` against the real PostgreSQL: every
/// transition, the one answer id per submission, answers recorded for a submission sent again,
/// and the pending request's typed context (and the text one rows made before it).
@Suite("Submission ledger", .serialized, .timeLimit(.minutes(2)))
struct SubmissionLedgerTests {
    static func status(_ pool: PostgresPool, _ schema: String, _ id: UUID) async throws -> SubmissionLedger.Status? {
        let rows = try await pool.query(
            "SELECT status FROM \(unescaped: schema).submissions WHERE submission_id = \(id)")
        return try rows.first.flatMap { SubmissionLedger.Status(rawValue: try $0.column(0, as: String.self)) }
    }

    @Test func everyTransitionAndItsAnswer() async throws {
        let (pool, schema) = try await TransparencyLogTests.schema()
        let ledger = SubmissionLedger(schema: schema)
        let items = (0..<5).map { _ in TransparencyLogTests.item([Hex.encode(try! SecureRandom.bytes(32))]) }
        let digest = Data(repeating: 7, count: 32)
        // Recorded: validating; a second record of an id is not new.
        let fresh = try await pool.transaction { try await ledger.record(items.map { ($0, digest) }, on: $0) }
        #expect(Set(fresh.keys) == Set(items.map(\.id)))
        let again = try await pool.transaction { try await ledger.record([(items[0], digest)], on: $0) }
        #expect(again.isEmpty)
        for item in items { #expect(try await Self.status(pool, schema, item.id) == .validating) }

        // PASS for two, in this order; FAIL for one; provenance refused for one; one times out.
        try await pool.transaction { try await ledger.queue([items[1].id, items[0].id], on: $0) }
        let queued = try await pool.withConnection { try await ledger.queued(limit: 10, on: $0) }
        #expect(queued.map(\.id) == [items[1].id, items[0].id])
        #expect(try await pool.withConnection { try await ledger.queuedCount(limit: 10, on: $0) } == 2)
        let rejected = try await pool.transaction { try await ledger.reject([(items[2].id, .authenticationFailed)], on: $0) }
        let refused = try await pool.transaction { try await ledger.refuse([(items[3], .invalidProvenance)], on: $0) }
        let question = SubmissionLedger.Question(submission: items[4].id)
        let timedOut = try await ledger.timedOut(
            [PendingRequest(correlationID: UUID(), context: try JSONCoding.encode(question), attempts: 3, createdAt: Date())],
            on: pool)
        let logged = try await pool.transaction {
            try await ledger.answerLogged(
                queued.map { ($0, [SubmissionResult.Leaf(imageHash: $0.entries[0].imageHash, leafIndex: 0, status: .appended)]) },
                treeSize: 1, on: $0)
        }
        for item in items { #expect(try await Self.status(pool, schema, item.id) == .answered) }

        // Each answer has the submission's one result id, goes where the submission said, and
        // is what a submission sent again gets.
        let answers: [(UUID, StageOutput?)] = [
            (items[0].id, logged.outputs.last), (items[1].id, logged.outputs.first), (items[2].id, rejected[items[2].id]?.first),
            (items[3].id, refused[items[3].id]), (items[4].id, timedOut.first),
        ]
        let seen = try await pool.withConnection { try await ledger.seen(items.map(\.id), on: $0) }
        for (id, output) in answers {
            let output = try #require(output, "\(id)")
            let result = try JSONCoding.decode(Message<SubmissionResult>.self, from: output.value)
            #expect(result.id == SubmissionLedger.resultID(id) && output.topic == "answers")
            #expect(seen[id]?.answer?.value == output.value && seen[id]?.digest == digest)
        }
        let reasons = try answers.map { try JSONCoding.decode(Message<SubmissionResult>.self, from: $0.1!.value).reason }
        #expect(reasons == [nil, nil, .authenticationFailed, .invalidProvenance, .validationTimeout])

        // Answered ones go after their retention; nothing else is left.
        #expect(try await ledger.sweepAnswered(olderThan: .zero, limit: 100, on: pool) == 5)
        await TransparencyLogTests.drop(pool, schema)
    }

    /// The updates a batch's ids drive are planned at every run, never under a plan the
    /// connection keeps: one made while the table was small scanned it once per id after it grew
    /// (``SubmissionLedger/keyedUpdate(_:)``). The ledger's insert, run as often on the same
    /// connection, is prepared: the connection does prepare what it runs again.
    @Test func updatesByIdArePlannedAtEveryRun() async throws {
        let (pool, schema) = try await TransparencyLogTests.schema()
        let ledger = SubmissionLedger(schema: schema)
        let digest = Data(repeating: 7, count: 32)
        let prepared = try await pool.withConnection { connection in
            for _ in 0..<4 {
                let item = TransparencyLogTests.item([Hex.encode(try SecureRandom.bytes(32))])
                let derived = TransparencyLogTests.item([Hex.encode(try SecureRandom.bytes(32))])
                try await connection.transaction { connection in
                    _ = try await ledger.record([(item, digest), (derived, digest)], on: connection)
                    _ = try await ledger.follow([(derived.id, item.id)], on: connection)
                    try await ledger.queue([item.id], on: connection)
                    let queued = try await ledger.queued(limit: 10, on: connection)
                    #expect(Set(queued.map(\.id)) == [item.id, derived.id])
                    let placed = queued.map { record in
                        (record, [SubmissionResult.Leaf(imageHash: record.entries[0].imageHash, leafIndex: 0, status: .appended)])
                    }
                    _ = try await ledger.answerLogged(placed, treeSize: 1, on: connection)
                }
                for id in [item.id, derived.id] { #expect(try await Self.status(pool, schema, id) == .answered) }
            }
            return try await connection.query("SELECT statement FROM pg_prepared_statements").decode(String.self)
        }
        #expect(prepared.contains { $0.contains("INSERT INTO \(schema).submissions") })
        for update in ["SET status = 'queued'", "SET status = 'answered'", "SET awaits = d.root"] {
            #expect(!prepared.contains { $0.contains(update) }, "\(update)")
        }
        await TransparencyLogTests.drop(pool, schema)
    }

    /// The token request's context is the typed question; one recorded before it was typed
    /// (the submission id as text) still names its submission.
    @Test func thePendingQuestionIsTypedAndReadsOldRows() throws {
        let id = UUID()
        let typed = PendingRequest(
            correlationID: UUID(), context: try JSONCoding.encode(SubmissionLedger.Question(submission: id)), attempts: 1,
            createdAt: Date())
        let text = PendingRequest(correlationID: UUID(), context: Array(id.lowercasedText.utf8), attempts: 1, createdAt: Date())
        let junk = PendingRequest(correlationID: UUID(), context: Array("nothing".utf8), attempts: 1, createdAt: Date())
        #expect(SubmissionLedger.question(of: typed)?.submission == id)
        #expect(SubmissionLedger.question(of: text)?.submission == id)
        #expect(SubmissionLedger.question(of: junk) == nil)
    }
}
