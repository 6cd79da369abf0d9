import Foundation
import HallmarkEnvelope
import HallmarkKafka
import HallmarkPostgres
@testable import HallmarkRuntime
import Logging
import SignerCore
import Testing

/// Why a redelivery gets the same verdict: a replay claim belongs to its message id and
/// commits on its own before the verdict is produced. A crash before the message's commit
/// leaves the claim, and the redelivery (same id) claims it again: accepted again. A copy
/// under another id is a replay. After commit the runtime's inbox skips the redelivery.
/// Checked here against real PostgreSQL.
@Suite("Replay claims and redelivery")
struct ReplayTransactionTests {
    struct Crash: Error {}

    @Test func redeliveryGetsTheSameVerdictAndCopiesAreReplays() async throws {
        let schema = "signer_tx_\(String(UUID().uuidString.prefix(8)).lowercased())"
        let pgPool = PostgresPool(configuration: try PostgresConfiguration.fromEnvironment(), logger: Logger(label: "t"))
        defer { pgPool.close() }
        try await StageDatabase(pool: pgPool, schema: schema).migrate(SignerMigrations.all(schema: schema),
                                                                      logger: Logger(label: "t"))
        var configuration = SignerConfiguration()
        configuration.schema = schema
        let workers = PBKDF2WorkerPool(workers: 2, batchSize: 4, logger: Logger(label: "t"))
        workers.startDetached()
        defer { workers.stop() }
        let secrets = SecretStore(try SecretSet(versions: [.init(version: "v1", secret: "tx")], signingVersion: "v1"))
        let processor = SignerProcessor(configuration: configuration, secrets: secrets,
                                        deriver: KeyDeriver(pool: workers, cache: DerivedKeyCache(capacity: 8, ttl: 60)),
                                        instance: "test", database: pgPool)
        let body = Data("tx".utf8)
        let headers = try Fixtures.signedHeaders(secret: "tx", body: body)

        func verdict(_ request: VerifyRequest, commit: Bool) async throws -> String {
            let bytes = try JSONCoding.encode(request)
            let message = StageMessage(header: try EnvelopeHeader.parse(bytes),
                                       kafka: KafkaMessage(topic: "t", partition: 0, offset: 0, key: nil, value: bytes))
            var seen = ""
            do {
                try await pgPool.transaction { connection in
                    let outputs = try await processor.process(
                        message, context: StageContext(connection: connection, logger: Logger(label: "t"), attempt: 0))
                    let result = try JSONSerialization.jsonObject(with: Data(outputs[0].value)) as! [String: Any]
                    seen = (result["reason"] as? String) ?? (result["verdict"] as? String ?? "")
                    if !commit { throw Crash() }
                }
            } catch is Crash {}
            return seen
        }

        let first = Fixtures.verify(headers, body: body)
        #expect(try await verdict(first, commit: false) == "accepted")  // crashed before commit
        #expect(try await verdict(first, commit: true) == "accepted")   // redelivered: same verdict
        #expect(try await verdict(Fixtures.verify(headers, body: body), commit: true) == "replay")
        // A copy processed while the first message's transaction is still open (another
        // replica, before the first one's crash) is a replay too: the claim is already committed.
        let second = Fixtures.verify(try Fixtures.signedHeaders(secret: "tx", partner: "other", body: body), body: body)
        #expect(try await verdict(second, commit: false) == "accepted")
        #expect(try await verdict(Fixtures.verify(second.headers, body: body), commit: true) == "replay")
        #expect(try await verdict(second, commit: true) == "accepted")
        let rows = try await pgPool.query("SELECT count(*)::bigint FROM \(unescaped: schema).replay")
        #expect(try rows[0].decode(Int64.self) == 2)
        // Expired entries are swept.
        _ = try await pgPool.execute("UPDATE \(unescaped: schema).replay SET expires_at = now() - interval '1 second'")
        #expect(try await ReplayStore(schema: schema).sweep(pool: pgPool) == 2)
        _ = try await pgPool.execute("DROP SCHEMA \(unescaped: schema) CASCADE")
    }
}
