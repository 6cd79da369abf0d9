import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkKafka
import HallmarkPostgres
import HallmarkRuntime
import HallmarkSmileID
import Logging
import SignerCore
import Testing

/// Why a redelivery gets the same verdict: a replay claim belongs to its message id and
/// commits on its own (phase 2) before the verdict is produced. A crash after the claim and
/// before the verdict is sent leaves the claim, and the redelivery (same id) claims it again:
/// accepted again. A copy under another id is a replay; so is a zip upload sent again under
/// another partner id, since a zip's MAC covers no header. Checked against real PostgreSQL.
@Suite("Replay claims and redelivery", .timeLimit(.minutes(2)))
struct ReplayTransactionTests {
    let schema = "signer_tx_\(String(UUID().uuidString.prefix(8)).lowercased())"
    let pgPool: PostgresPool
    let workers: PBKDF2WorkerPool
    let processor: VerifyProcessor
    let configuration: SignerConfiguration

    init() async throws {
        pgPool = PostgresPool(configuration: try PostgresConfiguration.fromEnvironment(), logger: Logger(label: "t"))
        try await StageDatabase(pool: pgPool, schema: schema).migrate(
            SignerMigrations.all(schema: schema),
            logger: Logger(label: "t"))
        var configuration = SignerConfiguration()
        configuration.schema = schema
        self.configuration = configuration
        workers = PBKDF2WorkerPool(workers: 2, batchSize: 4, service: "signer", logger: Logger(label: "t"))
        workers.startDetached()
        let secrets = SecretStore(try SecretSet(versions: [.init(version: "v1", secret: "tx")], signingVersion: "v1"))
        processor =
            SignerStages(
                configuration: configuration, secrets: secrets,
                deriver: KeyDeriver(pool: workers, cache: DerivedKeyCache(capacity: 8, ttl: 60)),
                instance: "test"
            ).verify
    }

    func finish() async throws {
        workers.stop()
        _ = try await pgPool.execute("DROP SCHEMA \(unescaped: schema) CASCADE")
        pgPool.close()
    }

    /// Phases 1 and 2 of one verify request, as the stage runs them; the verdict or reason.
    func verdict(_ request: Message<VerifyRequest>) async throws -> String {
        let bytes = try JSONCoding.encode(request)
        let (header, fields) = try EnvelopeHeader.read(bytes)
        let message = StageMessage(
            header: header,
            kafka: KafkaMessage(
                topic: configuration.verifyInput, partition: 0,
                offset: 0, key: nil, value: bytes), fields: fields)
        let log = Logger(label: "t")
        let prepared = try await processor.prepare(message, context: StageContext(logger: log, pool: pgPool))
        // In its own transaction, as the stage's per-message unit of work runs it.
        let verdicts = try await pgPool.transaction { connection in
            try await processor.commit([prepared], in: StageTransaction(connection: connection, logger: log))
        }
        guard case .outputs(let outputs) = verdicts[0] else { return "rejected message" }
        let result = try JSONCoding.decode(Message<VerifyResult>.self, from: outputs[0].value)
        return result.reason ?? result.verdict
    }

    @Test func redeliveryGetsTheSameVerdictAndCopiesAreReplays() async throws {
        let body = Data("tx".utf8)
        let headers = try Fixtures.signedHeaders(secret: "tx", body: body)
        let first = Fixtures.verify(headers, body: body)
        #expect(try await verdict(first) == "accepted")  // claimed; say the verdict was then lost
        #expect(try await verdict(first) == "accepted")  // redelivered: same verdict
        #expect(try await verdict(Fixtures.verify(headers, body: body)) == "replay")
        // Another partner's request with the same body is its own key.
        let second = Fixtures.verify(try Fixtures.signedHeaders(secret: "tx", partner: "other", body: body), body: body)
        #expect(try await verdict(second) == "accepted")
        #expect(try await verdict(Fixtures.verify(second.headers, body: body)) == "replay")
        let rows = try await pgPool.query("SELECT count(*)::bigint FROM \(unescaped: schema).replay")
        #expect(try rows[0].decode(Int64.self) == 2)
        // Expired entries are swept.
        _ = try await pgPool.execute("UPDATE \(unescaped: schema).replay SET expires_at = now() - interval '1 second'")
        #expect(try await ReplayStore(schema: schema).sweep(pool: pgPool) == 2)
        try await finish()
    }

    /// A zip upload's MAC covers no header: sending an accepted zip again with the partner id
    /// changed, padded or upper-cased is a replay every time.
    @Test func aZipCannotBeReplayedUnderAnotherPartnerID() async throws {
        let timestamp = Timestamp.now().text
        let info = #"{"timestamp":"\#(timestamp)","mac":"\#(try Fixtures.zipMAC(secret: "tx", timestamp: timestamp))"}"#
        let zip = try Fixtures.vectorDZip(infoJSON: info)
        func request(_ partner: String) -> Message<VerifyRequest> {
            Fixtures.verify(["SmileID-Partner-ID": partner, "Content-Type": "application/zip"], body: zip)
        }
        #expect(try await verdict(request("partner-1")) == "accepted")
        for partner in ["partner-2", "PARTNER-1", "partner-1x", "partner-1-padded"] {
            #expect(try await verdict(request(partner)) == "replay", "partner \(partner)")
        }
        try await finish()
    }
}
