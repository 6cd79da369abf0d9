import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkKafka
import HallmarkMessages

/// The E2EE-1 phases: sessions by real handshakes, then inbound messages all at once and at a
/// steady pace.
extension GatewayBench {
    /// Client sessions, one per id, made by handshakes through the gateway.
    func makeSessions(_ count: Int) async throws -> [(id: String, session: InvisoSession)] {
        let pairs = try (0..<count).map { _ in try X25519.generate() }
        let hellos = pairs.indices.map { i in
            Message(
                E2EEHandshake(
                    sessionID: "bench-\(run)-\(i)", clientPublicKey: pairs[i].publicKey.base64EncodedString()))
        }
        let outputs = try hellos.map { try KafkaOutgoingMessage.json(topic: topic("handshake.in"), key: $0.sessionID, $0) }
        let (answers, _) = try await exchange(
            reading: topic("handshake.out"), ids: Set(hellos.map(\.id.text)),
            timeout: .seconds(120)
        ) { try await sendAll(outputs) }
        var sessions: [(id: String, session: InvisoSession)] = []
        for answer in answers {
            let r = try JSONCoding.decode(Message<E2EEHandshakeResult>.self, from: answer.value)
            guard let i = hellos.firstIndex(where: { $0.id == r.requestID }),
                let gatewayKey = try? Base64.decode(r.gatewayPublicKey ?? "", length: 32)
            else { continue }
            sessions.append(
                (
                    r.sessionID,
                    try InvisoSession(
                        sessionKey: InvisoHandshake.clientSessionKey(
                            clientPrivateKey: pairs[i].privateKey, gatewayPublicKey: gatewayKey))
                ))
        }
        guard sessions.count == count else { throw BenchError("only \(sessions.count) of \(count) handshakes completed") }
        return sessions
    }

    /// `count` inbound messages, round robin over the sessions, each session's counters
    /// consecutive from `firstCounter`, answered on `replyTo` when given.
    static func inbound(
        _ count: Int, sessions: [(id: String, session: InvisoSession)], firstCounter: UInt64,
        replyTo: String? = nil
    ) throws -> [Message<E2EEInbound>] {
        try (0..<count).map { n in
            let (id, session) = sessions[n % sessions.count]
            let sealed = try session.seal(
                Data("bench message \(n) ".utf8) + Data(count: 64), direction: .clientToGateway,
                counter: firstCounter + UInt64(n / sessions.count))
            return Message(E2EEInbound(sessionID: id, message: sealed), replyTo: replyTo)
        }
    }

    /// In process, one thread: the same messages opened (HKDF of the message key + AES-GCM).
    static func openRate(_ load: [Message<E2EEInbound>], sessions: [(id: String, session: InvisoSession)]) throws -> Double {
        let byID = Dictionary(uniqueKeysWithValues: sessions.map { ($0.id, $0.session) })
        let elapsed = try ContinuousClock().measure {
            for m in load { _ = try byID[m.sessionID]!.open(m.message, direction: .clientToGateway) }
        }
        return Double(load.count) / elapsed.seconds
    }

    /// Sends the messages (at `pace` per second, or all at once) and reads every answer back:
    /// messages per second from the first send to the last answer, how many were decrypted,
    /// and each one's latency by id (ms, from handing it to the producer to reading its answer).
    func sendInbound(
        _ load: [Message<E2EEInbound>], pace: Double? = nil
    ) async throws
        -> (rate: Double, decrypted: Int, latencies: [String: Double], cost: Cost)
    {
        let outputs = try load.map { try KafkaOutgoingMessage.json(topic: topic("inbound.in"), key: $0.sessionID, $0) }
        let sentAt = SentTimes()
        let answersTopic = load.first?.replyTo ?? topic("plaintext.out")
        let (answers, cost) = try await exchange(reading: answersTopic, ids: Set(load.map(\.id.text))) { [io] in
            try await io.send(outputs, ids: load.map(\.id.text), pace: pace, sentAt: sentAt)
        }
        let decrypted = answers.filter { $0.json["status"]?.string == "decrypted" }.count
        var latencies: [String: Double] = [:]
        for a in answers { latencies[a.requestID] = sentAt.get(a.requestID).map { (a.at - $0).seconds * 1000 } }
        return (Double(answers.count) / cost.seconds, decrypted, latencies, cost)
    }
}
