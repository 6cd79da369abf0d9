import Foundation
import GatewayCore
import HallmarkClient
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime
import HallmarkTestSupport
import Logging
import Testing

/// E2EE-1 sessions through the gateway as its own process, real broker and PostgreSQL:
/// handshakes, 10,000 inbound messages in order, replayed, reordered, jumped and forged
/// counters, outbound counters, keys sealed at rest, and a session shared by two replicas
/// with one SIGKILLed under load.
@Suite("Gateway E2EE sessions against the real broker", .serialized, .timeLimit(.minutes(8)))
struct GatewaySessionTests {
    func handshake(_ h: GatewayHarness, _ client: inout InvisoClient) async throws -> Message<E2EEHandshakeResult> {
        let request = client.handshake()
        try await h.send(h.topic("handshake.in"), key: client.sessionID, message: request)
        let result = try await h.answer(E2EEHandshakeResult.self, to: request.id, on: h.topic("handshake.out"))
        if result.status == .keyExchangeComplete { try client.complete(result) }
        return result
    }

    /// Decrypted results on the plaintext topic, per session: counter → request ids that got it.
    func accepted(_ h: GatewayHarness) -> [String: [UInt64: Set<MessageID>]] {
        var out: [String: [UInt64: Set<MessageID>]] = [:]
        for bytes in h.watcher.messages(on: h.topic("plaintext.out")) {
            guard let r = try? JSONCoding.decode(Message<E2EEPlaintext>.self, from: bytes), r.status == .decrypted,
                let requestID = r.requestID
            else { continue }
            out[r.sessionID, default: [:]][r.counter!, default: []].insert(requestID)
        }
        return out
    }

    /// Every message the gateway produces is a CloudEvent the SDK reads as its payload says
    /// (``CloudEventsCheck``): ENC-1 results both ways, E2EE-1 handshake, plaintext and
    /// outbound results, rejected records and metrics.
    @Test func everyOutputIsACloudEvent() async throws {
        let h = try await GatewayHarness()
        let gateway = try await h.startGateway("cloudevents")
        var client = try InvisoClient()
        #expect(try await handshake(h, &client).status == .keyExchangeComplete)
        let inbound = try client.inbound("hello", counter: 0)
        try await h.send(h.topic("inbound.in"), key: client.sessionID, message: inbound)
        #expect(try await h.answer(E2EEPlaintext.self, to: inbound.id, on: h.topic("plaintext.out")).status == .decrypted)
        let outbound = Message(
            E2EEOutboundRequest(sessionID: client.sessionID, plaintextB64: Data("reply".utf8).base64EncodedString()))
        try await h.send(h.topic("outbound.in"), key: client.sessionID, message: outbound)
        _ = try await h.answer(E2EEOutbound.self, to: outbound.id, on: h.topic("outbound.out"))
        let encrypt = GatewayServiceTests.encryptRequest(Data(#"{"job_id":"ce"}"#.utf8), type: "application/json")
        try await h.send(h.encryptInput, key: "002", message: encrypt)
        let sealed = try await h.answer(EncryptResult.self, to: encrypt.id, on: h.encryptOutput)
        let decrypt = Message(DecryptRequest(headers: sealed.headers, bodyB64: sealed.bodyB64))
        try await h.send(h.decryptInput, key: "002", message: decrypt)
        _ = try await h.answer(DecryptResult.self, to: decrypt.id, on: h.decryptOutput)
        try await h.send(h.encryptInput, key: "002", Array("[]".utf8))
        #expect(
            await h.watcher.wait(timeout: .seconds(60)) {
                !$0.messages(on: h.rejected).isEmpty && !$0.messages(on: h.metrics).isEmpty
            })
        let required = [
            h.encryptOutput, h.decryptOutput, h.topic("handshake.out"), h.topic("plaintext.out"), h.topic("outbound.out"),
            h.rejected, h.metrics,
        ]
        let check = try await CloudEventsCheck.run(brokers: h.kafka.brokers, required: required, others: [h.topic("security")])
        #expect(check.passed, "\(check.output)")
        gateway.signal(SIGKILL)
        await h.close()
    }

    @Test func tenThousandInOrderThenEveryBadCounter() async throws {
        let h = try await GatewayHarness()
        let gateway = try await h.startGateway("sessions")
        var client = try InvisoClient()
        let done = try await handshake(h, &client)
        #expect(done.status == .keyExchangeComplete && done.expiresAt != nil)
        try h.validateAnswer(
            to: try #require(done.correlationID), on: h.topic("handshake.out"), against: E2EEHandshakeResult.schemaName)
        // The key is sealed at rest: the row holds neither the session key nor anything like it.
        let pool = PostgresPool(configuration: try PostgresConfiguration.fromEnvironment(), logger: h.logger)
        let sealed = try await pool.query(
            "SELECT sealed_key FROM \(unescaped: "gateway_\(h.id)").e2ee_sessions WHERE session_id = \(client.sessionID)"
        ).decode(Data.self)
        #expect(sealed.count == 1 && sealed[0].count > 32 && sealed[0].range(of: client.session!.sessionKey) == nil)

        let count = 10_000
        // Enqueued in order in chunks (one send per message would wait out a broker round trip each).
        for start in stride(from: 0, to: count, by: 500) {
            try await h.producer.send(
                try (start..<(start + 500)).map { n in
                    try StageOutput.json(
                        topic: h.topic("inbound.in"), key: client.sessionID,
                        client.inbound("message \(n)", counter: UInt64(n)))
                })
        }
        // A redelivery (a rebalance on a loaded machine) is answered again under the same id:
        // the first copy of each answer counts.
        let plaintextTopic = h.topic("plaintext.out")
        @Sendable func distinct(_ w: AnswerWatcher) -> [Message<E2EEPlaintext>] {
            var seen = Set<MessageID>()
            return w.messages(on: plaintextTopic).compactMap { try? JSONCoding.decode(Message<E2EEPlaintext>.self, from: $0) }
                .filter { seen.insert($0.id).inserted }
        }
        #expect(await h.watcher.wait(timeout: .seconds(240)) { w in distinct(w).count >= count })
        let results = distinct(h.watcher)
        #expect(results.count == count && results.allSatisfy { $0.status == .decrypted })
        // In order, each with its own plaintext.
        #expect(results.map(\.counter) == (0..<count).map { UInt64($0) })
        #expect(results.last?.plaintextB64 == Data("message \(count - 1)".utf8).base64EncodedString())

        // Replayed, reordered, jumped, forged, unknown session, wrong version.
        var cases: [(Message<E2EEInbound>, E2EEPlaintext.Reason?)] = [
            (try client.inbound("replayed", counter: 5), .replay),
            (try client.inbound("last again", counter: UInt64(count - 1)), .replay),
            (try client.inbound("ahead", counter: UInt64(count + 1)), nil),
            (try client.inbound("late", counter: UInt64(count)), .replay),  // reordered: below the last accepted
            (try client.inbound("jump", counter: UInt64(count + 1 + 1000)), .counterJump),
            (try client.inbound("edge", counter: UInt64(count + 1 + 999)), nil),
        ]
        var forged = try client.inbound("forged", counter: UInt64(count + 2000))
        var tag = try Base64.decode(forged.message.tag)
        tag[3] ^= 0x40
        forged.message.tag = tag.base64EncodedString()
        cases.append((forged, .authenticationFailed))
        var stranger = try InvisoClient()
        stranger.session = client.session
        cases.append((try stranger.inbound("no session", counter: 0), .unknownSession))
        for (message, _) in cases { try await h.send(h.topic("inbound.in"), key: message.sessionID, message: message) }
        for (message, reason) in cases {
            let result = try await h.answer(E2EEPlaintext.self, to: message.id, on: h.topic("plaintext.out"))
            #expect(result.reason == reason, "counter \(message.message.counter): \(String(describing: result.reason))")
            #expect((result.plaintextB64 == nil) == (reason != nil))
            try h.validateAnswer(to: message.id, on: h.topic("plaintext.out"), against: E2EEPlaintext.schemaName)
        }
        // A wire version other than 1 breaks the schema: a rejected record, as for any input.
        var versioned = try client.inbound("v2", counter: UInt64(count + 2001))
        versioned.message.version = 2
        try await h.send(h.topic("inbound.in"), key: client.sessionID, message: versioned)
        #expect(try await eventually { h.rejections()[versioned.id.text]?.first?["reason"] as? String == "schema_violation" })
        // A forged message did not move the counter: the next genuine one is still accepted.
        let after = try client.inbound("after forgery", counter: UInt64(count + 1 + 999 + 1))
        try await h.send(h.topic("inbound.in"), key: client.sessionID, message: after)
        #expect(try await h.answer(E2EEPlaintext.self, to: after.id, on: h.topic("plaintext.out")).status == .decrypted)

        // Outbound: consecutive gateway→client counters from 0, opened by the client.
        let outbound = (0..<3).map {
            Message(
                E2EEOutboundRequest(sessionID: client.sessionID, plaintextB64: Data("reply \($0)".utf8).base64EncodedString()))
        }
        for o in outbound { try await h.send(h.topic("outbound.in"), key: client.sessionID, message: o) }
        for (n, o) in outbound.enumerated() {
            let result = try await h.answer(E2EEOutbound.self, to: o.id, on: h.topic("outbound.out"))
            #expect(result.message?.counter == UInt64(n))
            #expect(try client.open(result) == "reply \(n)")
            try h.validateAnswer(to: o.id, on: h.topic("outbound.out"), against: E2EEOutbound.schemaName)
        }
        // Handshakes: a live session id is in use, a low-order key is weak.
        var again = try InvisoClient(sessionID: client.sessionID)
        #expect(try await handshake(h, &again).reason == .sessionInUse)
        let weak = Message(E2EEHandshake(sessionID: "weak-1", clientPublicKey: Data(count: 32).base64EncodedString()))
        try await h.send(h.topic("handshake.in"), key: "weak-1", message: weak)
        #expect(try await h.answer(E2EEHandshakeResult.self, to: weak.id, on: h.topic("handshake.out")).reason == .weakKey)
        try h.validateAnswer(to: weak.id, on: h.topic("handshake.out"), against: E2EEHandshakeResult.schemaName)
        // Closing deletes the session and its key: its next message is unknown_session, a
        // repeated close is still closed, and the id can then start a new session.
        for _ in 0..<2 {
            let close = Message(E2EEClose(sessionID: client.sessionID))
            try await h.send(h.topic("handshake.in"), key: client.sessionID, message: close)
            #expect(try await h.answer(E2EEHandshakeResult.self, to: close.id, on: h.topic("handshake.out")).status == .closed)
            try h.validateAnswer(to: close.id, on: h.topic("handshake.out"), against: E2EEHandshakeResult.schemaName)
            let left = try await pool.query(
                """
                SELECT count(*)::bigint FROM \(unescaped: "gateway_\(h.id)").e2ee_sessions WHERE session_id = \(client.sessionID)
                """
            ).decode(Int64.self)
            #expect(left == [0])
            let late = try client.inbound("after close", counter: 20_000)
            try await h.send(h.topic("inbound.in"), key: client.sessionID, message: late)
            #expect(try await h.answer(E2EEPlaintext.self, to: late.id, on: h.topic("plaintext.out")).reason == .unknownSession)
        }
        var reopened = try InvisoClient(sessionID: client.sessionID)
        #expect(try await handshake(h, &reopened).status == .keyExchangeComplete)
        let first = try reopened.inbound("new session", counter: 0)
        try await h.send(h.topic("inbound.in"), key: client.sessionID, message: first)
        #expect(try await h.answer(E2EEPlaintext.self, to: first.id, on: h.topic("plaintext.out")).status == .decrypted)
        #expect(
            try await eventually {
                h.counter("hallmark_gateway_e2ee_messages_total", ["direction": "inbound", "outcome": "replay"]) == 3
                    && h.counter("hallmark_gateway_e2ee_handshakes_total", ["outcome": "closed"]) == 2
            })
        gateway.signal(SIGTERM)
        #expect(await gateway.waitForExit(timeout: .seconds(30)) == 0)
        pool.close()
        await h.close()
    }

    /// Messages sent again (the same envelope ids, as after a crash before their offsets were
    /// committed) in one batch with new ones: the stage reruns the batch's transaction without
    /// the redeliveries. The counters the first run accepted were rolled back with it, so the
    /// rerun must decide from the row, not from what the replica remembered. Before that was
    /// so, the rerun found a conflict, the whole batch was retried with its redeliveries, and
    /// the partition never moved again.
    @Test func redeliveriesInABatchWithNewMessages() async throws {
        let h = try await GatewayHarness()
        let gateway = try await h.startGateway("redelivery")
        var client = try InvisoClient()
        #expect(try await handshake(h, &client).status == .keyExchangeComplete)
        let first = try (0..<20).map { try client.inbound("m\($0)", counter: UInt64($0)) }
        try await h.producer.send(try first.map { try .json(topic: h.topic("inbound.in"), key: client.sessionID, $0) })
        #expect(await h.watcher.wait(timeout: .seconds(60)) { w in first.allSatisfy { !w.answers(for: $0.id).isEmpty } })
        let more = try (20..<60).map { try client.inbound("m\($0)", counter: UInt64($0)) }
        let again = Array(first[10...]) + more
        try await h.producer.send(try again.map { try .json(topic: h.topic("inbound.in"), key: client.sessionID, $0) })
        #expect(await h.watcher.wait(timeout: .seconds(60)) { w in more.allSatisfy { !w.answers(for: $0.id).isEmpty } })
        let counters = accepted(h)[client.sessionID] ?? [:]
        #expect(counters.count == 60 && counters.values.allSatisfy { $0.count == 1 })
        gateway.signal(SIGTERM)
        #expect(await gateway.waitForExit(timeout: .seconds(30)) == 0)
        await h.close()
    }

    /// Two replicas in one group share four sessions; one is SIGKILLed while messages flow.
    /// Every message gets an answer and no counter is accepted for two different messages.
    @Test func twoReplicasAndASigkillAcceptNoCounterTwice() async throws {
        let h = try await GatewayHarness()
        let group = ["HALLMARK_GROUP_ID": "test-gateway-\(h.id)-shared"]
        let a = try await h.startGateway("a", group)
        let b = try await h.startGateway("b", group)
        var clients: [InvisoClient] = []
        for i in 0..<4 {
            var c = try InvisoClient(sessionID: "shared-\(h.id)-\(i)")
            #expect(try await handshake(h, &c).status == .keyExchangeComplete)
            clients.append(c)
        }
        let perSession = 1500
        var sent: [MessageID] = []
        for start in stride(from: 0, to: perSession, by: 100) {
            var chunk: [StageOutput] = []
            for n in start..<(start + 100) {
                for c in clients {
                    let m = try c.inbound("m\(n)", counter: UInt64(n))
                    sent.append(m.id)
                    chunk.append(try .json(topic: h.topic("inbound.in"), key: c.sessionID, m))
                }
            }
            try await h.producer.send(chunk)
            if start == 500 { b.signal(SIGKILL) }
        }
        let ids = Set(sent)
        #expect(await h.watcher.wait(timeout: .seconds(300)) { w in ids.allSatisfy { !w.answers(for: $0).isEmpty } })
        let accepted = accepted(h)
        for c in clients {
            let counters = accepted[c.sessionID] ?? [:]
            #expect(counters.count == perSession, "\(c.sessionID): \(counters.count) counters accepted")
            #expect(counters.values.allSatisfy { $0.count == 1 }, "a counter accepted for two messages")
        }
        a.signal(SIGTERM)
        #expect(await a.waitForExit(timeout: .seconds(30)) == 0)
        await h.close()
    }
}
