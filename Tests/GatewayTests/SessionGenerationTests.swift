import Foundation
@testable import GatewayCore
import HallmarkCore
import HallmarkCrypto
import HallmarkKafka
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime
import HallmarkTestSupport
import Logging
import Testing

/// Issue 30 §3: two replicas of the session stage (each its own key cache and counter hints)
/// against one real PostgreSQL. Replica A runs the handshake and the close; replica B only
/// serves the session's messages, so its cache still holds the closed session's key when the
/// id is taken again. That key must never decrypt into the new session, and the new
/// session's genuine messages and outbound replies must work on B at once.
@Suite(.timeLimit(.minutes(2)))
struct SessionGenerationTests {
    let pool: PostgresPool
    let schema = "generation_\(UInt32.random(in: 0...UInt32.max))"
    let configuration = GatewayConfiguration()
    let keyring: KeyEncryptionKeyring
    let logger = Logger(label: "test")

    init() async throws {
        pool = PostgresPool(configuration: try PostgresConfiguration.fromEnvironment(), logger: logger)
        keyring = try KeyEncryptionFile.parse(try KeyEncryptionFile.generateText(title: "test", index: false), source: "test")
            .keyring
        try await pool.execute("CREATE SCHEMA \(unescaped: schema)")
        _ = try await PostgresMigrations(schema: schema, migrations: GatewayMigrations.all(schema: schema))
            .apply(on: pool, logger: logger)
    }

    /// One replica of the session stage: its own store (counter hints) and key cache.
    func replica() -> SessionProcessor {
        SessionProcessor(
            configuration: configuration, store: SessionStore(schema: schema, keyring: keyring),
            events: GatewayEvents(topic: "security", instance: "test", settings: .init(), now: { Date() }))
    }

    /// Runs `message` through both phases of `processor` as the stage would (phase 2 in a
    /// transaction) and returns its answer on `topic`.
    func run<Body: MessageBody>(
        _ processor: SessionProcessor, _ message: some Encodable, on input: String,
        key: String, answer: Body.Type, from output: String
    ) async throws -> Message<Body> {
        let bytes = try JSONCoding.encode(message)
        let (header, fields) = try EnvelopeHeader.read(bytes)
        let kafka = KafkaMessage(topic: input, partition: 0, offset: 0, key: Array(key.utf8), value: bytes)
        let prepared = try await processor.prepare(
            StageMessage(header: header, kafka: kafka, fields: fields),
            context: StageContext(logger: logger, pool: pool))
        let verdicts = try await pool.transaction { connection in
            try await processor.commit(
                [prepared], in: StageTransaction(connection: connection, logger: logger))
        }
        guard case .outputs(let outputs) = try #require(verdicts.first),
            let out = outputs.first(where: { $0.topic == output })
        else { throw HarnessError("no answer on \(output)") }
        return try JSONCoding.decode(Message<Body>.self, from: out.value)
    }

    func handshake(_ processor: SessionProcessor, _ client: inout InvisoClient) async throws -> Message<E2EEHandshakeResult> {
        let result = try await run(
            processor, client.handshake(), on: configuration.handshakeInput, key: client.sessionID,
            answer: E2EEHandshakeResult.self, from: configuration.handshakeOutput)
        if result.status == .keyExchangeComplete { try client.complete(result) }
        return result
    }

    func inbound(
        _ processor: SessionProcessor, _ client: InvisoClient, _ text: String, counter: UInt64
    ) async throws
        -> Message<E2EEPlaintext>
    {
        try await run(
            processor, try client.inbound(text, counter: counter), on: configuration.inboundInput,
            key: client.sessionID, answer: E2EEPlaintext.self, from: configuration.plaintextOutput)
    }

    func outbound(_ processor: SessionProcessor, _ sessionID: String, _ text: String) async throws -> Message<E2EEOutbound> {
        let request = Message(E2EEOutboundRequest(sessionID: sessionID, plaintextB64: Data(text.utf8).base64EncodedString()))
        return try await run(
            processor, request, on: configuration.outboundInput, key: sessionID,
            answer: E2EEOutbound.self, from: configuration.outboundOutput)
    }

    @Test func aClosedSessionsCachedKeyNeverWorksForTheNextSessionOnAnotherReplica() async throws {
        let a = replica(), b = replica()
        var old = try InvisoClient()
        #expect(try await handshake(a, &old).status == .keyExchangeComplete)
        // Both replicas serve the session: both cache its key.
        #expect(try await inbound(a, old, "m0", counter: 0).status == .decrypted)
        #expect(try await inbound(b, old, "m1", counter: 1).status == .decrypted)
        #expect(try old.open(try await outbound(b, old.sessionID, "r0")) == "r0")

        // A closes the session and the id is taken again, with a new key; B was not told.
        let close = Message(E2EEClose(sessionID: old.sessionID))
        #expect(
            try await run(
                a, close, on: configuration.handshakeInput, key: old.sessionID,
                answer: E2EEHandshakeResult.self, from: configuration.handshakeOutput
            ).status == .closed)
        var new = try InvisoClient(sessionID: old.sessionID)
        #expect(try await handshake(a, &new).status == .keyExchangeComplete)

        // The closed session's message, a counter the new session never saw: refused on both.
        for replica in [b, a] {
            let stale = try await inbound(replica, old, "from the closed session", counter: 5)
            #expect(
                stale.status == .rejected && stale.reason == .authenticationFailed && stale.plaintextB64 == nil,
                "old key: \(stale.status) \(String(describing: stale.reason))")
        }
        // The new session's genuine messages are decrypted on B at once, in order, from 0.
        for (n, replica) in [b, a, b].enumerated() {
            let genuine = try await inbound(replica, new, "new \(n)", counter: UInt64(n))
            #expect(
                genuine.status == .decrypted && genuine.counter == UInt64(n),
                "new key, counter \(n): \(String(describing: genuine.reason))")
        }
        // Outbound on B is sealed with the new session's key, from counter 0.
        let reply = try await outbound(b, new.sessionID, "to the new session")
        #expect(reply.message?.counter == 0)
        #expect((try? new.open(reply)) == "to the new session")
        #expect((try? old.open(reply)) == nil)
        try await pool.execute("DROP SCHEMA \(unescaped: schema) CASCADE")
        pool.close()
    }
}
