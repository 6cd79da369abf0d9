import Foundation
import GatewayCore
import HallmarkCore
import HallmarkCrypto
import HallmarkKafka
import HallmarkMessages
import HallmarkRuntime
import HallmarkTestSupport
import Testing

/// Every E2EE-1 input with a readable id gets its answer on its result topic (issue 30 §2),
/// with the gateway as its own process on the real broker.
@Suite("Gateway E2EE answers", .serialized, .timeLimit(.minutes(4)))
struct GatewaySessionAnswerTests {
    func handshake(
        _ h: GatewayHarness, _ client: inout InvisoClient, on topic: String? = nil
    ) async throws
        -> Message<E2EEHandshakeResult>
    {
        let request = client.handshake()
        try await h.send(topic ?? h.topic("handshake.in"), key: client.sessionID, message: request)
        let result = try await h.answer(E2EEHandshakeResult.self, to: request.id, on: h.topic("handshake.out"))
        if result.status == .keyExchangeComplete { try client.complete(result) }
        return result
    }

    /// A client key of 31 or 33 bytes breaks the handshake's schema; docs/gateway.md promises
    /// `invalid_public_key` on `e2ee.handshake.results`, not silence on the results topic.
    @Test func aKeyThatIsNot32BytesIsAnsweredInvalidPublicKey() async throws {
        let h = try await GatewayHarness()
        let gateway = try await h.startGateway("keys")
        var sent: [MessageID] = []
        for length in [31, 33, 0, 64] {
            let session = "short-\(h.id)-\(length)"
            let request = Message(
                E2EEHandshake(
                    sessionID: session, clientPublicKey: Data((0..<length).map { UInt8($0 &+ 9) }).base64EncodedString()))
            try await h.send(h.topic("handshake.in"), key: session, message: request)
            sent.append(request.id)
        }
        for id in sent {
            let result = try await h.answer(E2EEHandshakeResult.self, to: id, on: h.topic("handshake.out"), timeout: .seconds(60))
            #expect(result.status == .rejected && result.reason == .invalidPublicKey && result.gatewayPublicKey == nil)
            #expect(result.requestID == id && result.correlationID == id.text)
            try h.validateAnswer(to: id, on: h.topic("handshake.out"), against: E2EEHandshakeResult.schemaName)
        }
        // A good handshake still completes; each bad one was answered exactly once.
        var client = try InvisoClient()
        #expect(try await handshake(h, &client).status == .keyExchangeComplete)
        for id in sent { #expect(h.watcher.answers(for: id).count == 1) }
        gateway.signal(SIGTERM)
        #expect(await gateway.waitForExit(timeout: .seconds(30)) == 0)
        await h.close()
    }

    /// Issue 30 §3 through two gateway processes in one group, with the handshake, inbound and
    /// outbound topics of equal and of different partition counts (one handshake partition:
    /// a session's handshake lands on one replica, its traffic on both). The session's inbound
    /// messages are published to every partition, so both replicas cache its key. The session is
    /// closed and its id taken again (both on the replica owning its handshake partition); then
    /// a message sealed with the old key and one with the new key go to every partition, one at
    /// a time. No replica may decrypt the old key's message, and every replica decrypts the new
    /// session's messages and seals its replies with the new key.
    @Test(arguments: [[4, 4, 4], [1, 5, 3]])
    func twoReplicasNeverUseAClosedSessionsKeyForTheNextOne(partitions: [Int]) async throws {
        let h = try await GatewayHarness()
        let (handshakes, inbound, outbound) = (
            h.topic("handshake.p\(partitions[0])"), h.topic("inbound.p\(partitions[1])"),
            h.topic("outbound.p\(partitions[2])")
        )
        for (topic, count) in zip([handshakes, inbound, outbound], partitions) {
            _ = try await KafkaAdmin(configuration: h.kafka, logger: h.logger).createTopics([topic], partitions: count)
        }
        let environment = [
            "HALLMARK_GROUP_ID": "test-gateway-\(h.id)-generations", "HALLMARK_GATEWAY_HANDSHAKE_INPUT": handshakes,
            "HALLMARK_GATEWAY_INBOUND_INPUT": inbound, "HALLMARK_GATEWAY_OUTBOUND_INPUT": outbound,
        ]
        let a = try await h.startGateway("a", environment)
        let b = try await h.startGateway("b", environment)
        var old = try InvisoClient()
        #expect(try await handshake(h, &old, on: handshakes).status == .keyExchangeComplete)
        func send(_ message: Message<E2EEInbound>, partition: Int32) async throws -> Message<E2EEPlaintext> {
            try await h.producer.send([
                KafkaOutgoingMessage(
                    topic: inbound, key: Array(message.sessionID.utf8),
                    value: try JSONCoding.encode(message), partition: partition)
            ])
            return try await h.answer(E2EEPlaintext.self, to: message.id, on: h.topic("plaintext.out"), timeout: .seconds(60))
        }
        let inboundPartitions = Int32(0)..<Int32(partitions[1])
        var counter: UInt64 = 0
        for partition in inboundPartitions {
            #expect(
                try await send(try old.inbound("old \(partition)", counter: counter), partition: partition).status == .decrypted)
            counter += 1
        }
        let close = Message(E2EEClose(sessionID: old.sessionID))
        try await h.send(handshakes, key: old.sessionID, message: close)
        #expect(try await h.answer(E2EEHandshakeResult.self, to: close.id, on: h.topic("handshake.out")).status == .closed)
        var new = try InvisoClient(sessionID: old.sessionID)
        #expect(try await handshake(h, &new, on: handshakes).status == .keyExchangeComplete)
        for partition in inboundPartitions {
            let stale = try await send(try old.inbound("stale \(partition)", counter: counter + 100), partition: partition)
            #expect(
                stale.status == .rejected && stale.reason == .authenticationFailed,
                "partition \(partition), old key: \(stale.status) \(String(describing: stale.reason))")
            let genuine = try await send(try new.inbound("new \(partition)", counter: UInt64(partition)), partition: partition)
            #expect(genuine.status == .decrypted, "partition \(partition), new key: \(String(describing: genuine.reason))")
        }
        for partition in Int32(0)..<Int32(partitions[2]) {
            let request = Message(
                E2EEOutboundRequest(sessionID: new.sessionID, plaintextB64: Data("reply \(partition)".utf8).base64EncodedString())
            )
            try await h.producer.send([
                KafkaOutgoingMessage(
                    topic: outbound, key: Array(new.sessionID.utf8),
                    value: try JSONCoding.encode(request), partition: partition)
            ])
            let reply = try await h.answer(E2EEOutbound.self, to: request.id, on: h.topic("outbound.out"), timeout: .seconds(60))
            #expect((try? new.open(reply)) == "reply \(partition)", "partition \(partition): not sealed with the new key")
        }
        for gateway in [a, b] {
            gateway.signal(SIGTERM)
            #expect(await gateway.waitForExit(timeout: .seconds(30)) == 0)
        }
        await h.close()
    }

    /// An inbound message and an outbound request, each published twice with the same bytes
    /// (two Kafka records, the same id): a redelivery, which gets its first answer again
    /// (DESIGN §2), so a caller that sees only the second copy is still answered.
    @Test func e2eeMessagesSentTwiceGetTheSameAnswerTwice() async throws {
        let h = try await GatewayHarness()
        let gateway = try await h.startGateway("twice")
        var client = try InvisoClient()
        #expect(try await handshake(h, &client).status == .keyExchangeComplete)
        let inbound = try JSONCoding.encode(try client.inbound("twice", counter: 0))
        let inboundID = try JSONCoding.decode(Message<E2EEInbound>.self, from: inbound).id
        let outbound = Message(
            E2EEOutboundRequest(sessionID: client.sessionID, plaintextB64: Data("reply".utf8).base64EncodedString()))
        let outboundBytes = try JSONCoding.encode(outbound)
        for _ in 0..<2 {
            try await h.send(h.topic("inbound.in"), key: client.sessionID, inbound)
            try await h.send(h.topic("outbound.in"), key: client.sessionID, outboundBytes)
        }
        let both = await h.watcher.wait(timeout: .seconds(60)) { w in
            w.answers(for: inboundID).count >= 2 && w.answers(for: outbound.id).count >= 2
        }
        #expect(
            both,
            "inbound: \(h.watcher.answers(for: inboundID).count) answers, outbound: \(h.watcher.answers(for: outbound.id).count)")
        let plaintexts = try h.watcher.answers(for: inboundID).map {
            try JSONCoding.decode(Message<E2EEPlaintext>.self, from: $0)
        }
        #expect(plaintexts.count == 2 && Set(plaintexts.map(\.id)).count == 1)
        #expect(plaintexts.allSatisfy { $0.status == .decrypted && $0.counter == 0 })
        let replies = try h.watcher.answers(for: outbound.id).map { try JSONCoding.decode(Message<E2EEOutbound>.self, from: $0) }
        #expect(replies.count == 2 && Set(replies.map(\.id)).count == 1)
        #expect(Set(replies.compactMap { $0.message?.counter }) == [0])
        let opener = client
        #expect(try replies.allSatisfy { try opener.open($0) == "reply" })
        gateway.signal(SIGTERM)
        #expect(await gateway.waitForExit(timeout: .seconds(30)) == 0)
        await h.close()
    }
}
