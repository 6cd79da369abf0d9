import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkKafka
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime
import HallmarkTestSupport
import Logging
import Testing

@testable import AggregatorCore

/// The intake judges a batch before it records it (so a token's new root carries its token in
/// its own row): an id another replica records between the batch's read and its insert (the
/// same id on two partitions at once) undoes the batch, which is judged again and then finds
/// the id taken. Against the real PostgreSQL, the other replica's transaction held open until
/// the intake's insert waits for it.
@Suite("Submission intake races", .serialized, .timeLimit(.minutes(1)))
struct SubmissionIntakeRaceTests {
    @Test func anIdRecordedMeanwhileUndoesTheBatchAndItIsJudgedAgain() async throws {
        let (pool, schema) = try await TransparencyLogTests.schema()
        var configuration = AggregatorConfiguration()
        configuration.schema = schema
        let idKey = try SubmissionIDKey.generate()
        let flow = SubmissionFlow(configuration, idKey: idKey)
        let intake = SubmissionIntake(
            configuration: configuration, idKey: idKey, flow: flow, instance: "race", metrics: AggregatorMetrics(),
            pool: pool)
        let other = TransparencyLogTests.item([Hex.encode(try SecureRandom.bytes(32))])
        let ask = try Self.ask(other)
        let fresh = try Self.ask(TransparencyLogTests.item([Hex.encode(try SecureRandom.bytes(32))]))
        let logger = Logger(label: "race")

        // The other replica records the id and has not committed when the intake inserts it.
        let attempt = try await pool.transaction { connection in
            _ = try await flow.ledger.record([(other, ask.digest, nil)], on: connection)
            let attempt = Task { try await intake.commit([fresh, ask], context: StageCommitContext(logger: logger)) }
            let waits = try await eventually(timeout: .seconds(20)) { () async throws -> Bool in
                let rows = try await pool.query(
                    """
                    SELECT count(*)::int8 FROM pg_stat_activity
                    WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO \(unescaped: schema).submissions%'
                    """)
                return (try rows.decode(Int64.self).first ?? 0) == 1
            }
            #expect(waits, "the intake's insert waits for the other replica's row")
            return attempt
        }
        await #expect(throws: SubmissionIntake.RecordedMeanwhile.self) { _ = try await attempt.value }
        #expect(try await SubmissionLedgerTests.status(pool, schema, fresh.row.id) == nil, "the batch was undone")

        // Judged again: the id is the other replica's (in progress), the rest is recorded.
        let verdicts = try await intake.commit([fresh, ask], context: StageCommitContext(logger: logger))
        #expect(verdicts.count == 2)
        #expect(try await SubmissionLedgerTests.status(pool, schema, fresh.row.id) == .validating)
        await TransparencyLogTests.drop(pool, schema)
    }

    /// A submission to record with no token (the log alone judges it) and its token request.
    static func ask(_ row: SubmissionRecord) throws -> SubmissionIntake.Ask {
        let text =
            #"{"schema":"hallmark.submission.v1","id":"\#(row.id.uuidString)","produced_at":"2026-12-04T00:00:00.000Z"}"#
        let bytes = Array(text.utf8)
        let (header, fields) = try EnvelopeHeader.read(bytes)
        let message = StageMessage(
            header: header, kafka: KafkaMessage(topic: "submissions", partition: 0, offset: 0, key: nil, value: bytes),
            fields: fields)
        return SubmissionIntake.Ask(
            message: message, row: row, digest: Data(message.contentDigest), provenance: Provenance(row.entries),
            capture: nil, request: StageOutput(topic: "requests", key: nil, value: Array("request".utf8)),
            correlationID: UUID(), refusal: nil)
    }
}
