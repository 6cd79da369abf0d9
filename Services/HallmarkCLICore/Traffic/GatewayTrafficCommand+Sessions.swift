import ArgumentParser
import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkKafka
import HallmarkMessages
import GatewayCore
import Logging

extension GatewayTrafficCommand {
    /// E2EE-1: a handshake as a client, `messages` inbound messages in order plus a replay of
    /// the first, three outbound replies opened with the client's keys, then a close, after
    /// which the session's next message is `unknown_session`.
    func sessions(
        _ c: GatewayConfiguration, kafka: KafkaConfiguration, producer: KafkaProducer, messages: Int,
        logger: Logger
    ) async throws -> Int {
        let sessionID = "sample-\(MessageID.random())"
        let pair = try X25519.generate()
        let hello = Message(E2EEHandshake(sessionID: sessionID, clientPublicKey: pair.publicKey.base64EncodedString()))
        let done = try await TrafficExchange.run(
            kafka: kafka, output: c.handshakeOutput, ids: [hello.id], timeout: timeout,
            logger: logger
        ) {
            try await producer.send(topic: c.handshakeInput, key: Array(sessionID.utf8), value: JSONCoding.encode(hello))
        }
        guard let bytes = done[hello.id], let result = try? JSONCoding.decode(E2EEHandshakeResult.self, from: bytes),
            let gatewayKey = result.gatewayPublicKey.flatMap({ try? Base64.decode($0, length: 32) })
        else {
            print("no handshake result on \(c.handshakeOutput)")
            return 1
        }
        let session = try InvisoSession(
            sessionKey: InvisoHandshake.clientSessionKey(
                clientPrivateKey: pair.privateKey,
                gatewayPublicKey: gatewayKey))
        var inbound = try (0..<messages).map { n in
            Message(
                E2EEInbound(
                    sessionID: sessionID,
                    message: try session.seal(Data("hello \(n)".utf8), direction: .clientToGateway, counter: UInt64(n))))
        }
        var replay = inbound[0]
        replay.header.id = MessageID.random()
        inbound.append(replay)
        let answers = try await TrafficExchange.run(
            kafka: kafka, output: c.plaintextOutput, ids: inbound.map(\.id),
            timeout: timeout, logger: logger
        ) {
            try await producer.send(try inbound.map { try .json(topic: c.inboundInput, key: sessionID, $0) })
        }
        var tally: [String: Int] = [:]
        var wrong = 0
        for (n, message) in inbound.enumerated() {
            guard let bytes = answers[message.id], let r = try? JSONCoding.decode(E2EEPlaintext.self, from: bytes) else {
                continue
            }
            tally[r.reason?.rawValue ?? r.status.rawValue, default: 0] += 1
            let expected = n < messages ? Data("hello \(n)".utf8).base64EncodedString() : nil
            if r.plaintextB64 != expected || (expected == nil && r.reason != .replay) { wrong += 1 }
        }
        print(
            "session \(result.status.rawValue); inbound \(answers.count)/\(inbound.count) on \(c.plaintextOutput): "
                + tally.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        let replies = (0..<3).map {
            Message(E2EEOutboundRequest(sessionID: sessionID, plaintextB64: Data("reply \($0)".utf8).base64EncodedString()))
        }
        let sealed = try await TrafficExchange.run(
            kafka: kafka, output: c.outboundOutput, ids: replies.map(\.id),
            timeout: timeout, logger: logger
        ) {
            try await producer.send(try replies.map { try .json(topic: c.outboundInput, key: sessionID, $0) })
        }
        var opened = 0
        for (n, reply) in replies.enumerated() {
            guard let bytes = sealed[reply.id], let r = try? JSONCoding.decode(E2EEOutbound.self, from: bytes),
                let wire = r.message, wire.counter == UInt64(n),
                (try? session.open(wire, direction: .gatewayToClient)) == Data("reply \(n)".utf8)
            else { continue }
            opened += 1
        }
        print("outbound \(opened)/\(replies.count) on \(c.outboundOutput) opened by the client with counters 0-2")
        let close = Message(E2EEClose(sessionID: sessionID))
        let late = Message(
            E2EEInbound(
                sessionID: sessionID,
                message: try session.seal(Data("after close".utf8), direction: .clientToGateway, counter: UInt64(messages))))
        let closed = try await TrafficExchange.run(
            kafka: kafka, output: c.handshakeOutput, ids: [close.id], timeout: timeout,
            logger: logger
        ) {
            try await producer.send(topic: c.handshakeInput, key: Array(sessionID.utf8), value: JSONCoding.encode(close))
        }
        let after = try await TrafficExchange.run(
            kafka: kafka, output: c.plaintextOutput, ids: [late.id], timeout: timeout,
            logger: logger
        ) {
            try await producer.send(topic: c.inboundInput, key: Array(sessionID.utf8), value: JSONCoding.encode(late))
        }
        let closeStatus = closed[close.id].flatMap { try? JSONCoding.decode(E2EEHandshakeResult.self, from: $0) }?.status
        let lateReason = after[late.id].flatMap { try? JSONCoding.decode(E2EEPlaintext.self, from: $0) }?.reason
        print("close \(closeStatus?.rawValue ?? "unanswered"); a message after it: \(lateReason?.rawValue ?? "unanswered")")
        return wrong + (answers.count == inbound.count ? 0 : 1) + (replies.count - opened)
            + (closeStatus == .closed ? 0 : 1) + (lateReason == .unknownSession ? 0 : 1)
    }
}
