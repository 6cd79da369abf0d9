import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkKafka
import HallmarkMessages

/// The ENC-1 phases: JSON requests (one PBKDF2 derivation each, the bound) and 1 MB ZIP
/// bodies (AES-GCM over the whole file, base64 both ways).
extension GatewayBench {
    /// `count` encrypt requests with `body`, each its own request id (so its own salt: no key
    /// is derived twice) and `contentType`.
    static func encryptRequests(_ count: Int, contentType: String, body: (Int) -> Data) -> [Message<EncryptRequest>] {
        (0..<count).map { i in
            Message(
                EncryptRequest(
                    headers: ["Content-Type": contentType, "SmileID-Partner-ID": "partner-\(i % 64)"],
                    bodyB64: body(i).base64EncodedString(), method: "POST", path: "/v1/submit_job"))
        }
    }

    /// Sends the requests all at once and reads every result back: requests per second from
    /// the first send to the last result, and how many came back encrypted.
    func sendEncrypt(_ requests: [Message<EncryptRequest>]) async throws -> (rate: Double, encrypted: Int, cost: Cost) {
        let outputs = try requests.map {
            try KafkaOutgoingMessage.json(topic: topic("encrypt.in"), key: $0.headers["SmileID-Partner-ID"], $0)
        }
        let (answers, cost) = try await exchange(reading: topic("encrypt.out"), ids: Set(requests.map(\.id.text))) { [self] in
            try await sendAll(outputs)
        }
        let encrypted = answers.filter { $0.json["encrypted"] == .bool(true) }.count
        return (Double(answers.count) / cost.seconds, encrypted, cost)
    }

    /// In process, one thread: the bodies sealed into ENC-1 envelopes with already derived
    /// keys (AES-GCM, base64 and the envelope JSON; no PBKDF2), in bytes of body per second.
    static func sealRate(_ bodies: [Data]) throws -> Double {
        let keys = try SmileIDEncryption.keys(master: try SecureRandom.bytes(32))
        let timestamp = Timestamp.now().text
        let elapsed = try ContinuousClock().measure {
            for body in bodies { _ = try SmileIDEncryption.encrypt(body, keys: keys, timestamp: timestamp).jsonData() }
        }
        return Double(bodies.reduce(0) { $0 + $1.count }) / elapsed.seconds
    }
}
