import Foundation
import GatewayCore
import HallmarkCore
import HallmarkMessages
import HallmarkRuntime
import HallmarkSmileID
import HallmarkStageTesting
import Logging
import Testing

/// The gateway's ENC-1 stage run whole on the in-memory broker: it has no transaction, so
/// neither Kafka nor PostgreSQL is needed. Requests of every kind are encrypted and decrypted
/// back byte for byte, a tampered envelope is refused without plaintext, and a request that
/// breaks its schema is answered on its result topic after its rejected record.
@Suite("ENC-1 stage without a broker", .timeLimit(.minutes(1)))
struct EnvelopeStageMemoryTests {
    @Test func encryptsDecryptsAndRefusesWithoutABroker() async throws {
        let (deriver, workers) = GatewayFixtures.deriver()
        defer { workers.stop() }
        let configuration = GatewayConfiguration()
        let processor = EnvelopeProcessor(
            configuration: configuration, secrets: SecretStore(try GatewayFixtures.secrets()), deriver: deriver,
            events: GatewayEvents(topic: configuration.securityTopic, instance: "memory", settings: .init(), now: { Date() }))
        let broker = MemoryBroker()
        var stageConfiguration = StageConfiguration(
            service: "gateway", inputs: processor.inputs, groupID: "memory", rejectedTopic: "rejected",
            retry: RetryPolicy(initialDelay: .milliseconds(1), maxDelay: .milliseconds(4)))
        stageConfiguration.instance = "memory"
        let stage = Stage(
            configuration: stageConfiguration, transport: broker.transport(), database: nil, processor: processor,
            logger: Logger(label: "envelope-memory-test"))
        let running = Task { try await stage.run() }
        defer { running.cancel() }

        let bodies = [
            (Data(#"{"partner_params":{"job_id":"job-7"}}"#.utf8), "application/json"),
            (GatewayFixtures.zip, "application/zip"),
            (GatewayFixtures.multipart(), GatewayFixtures.multipartType),
        ]
        let requests = bodies.map { GatewayServiceTests.encryptRequest($0.0, type: $0.1) }
        for request in requests {
            broker.produce(topic: configuration.encryptInput, key: "002", value: try JSONCoding.encode(request))
        }
        // A header name that is no RFC 9110 token breaks the schema.
        var broken = GatewayServiceTests.encryptRequest(Data("{}".utf8), type: "application/json")
        broken.headers["bad header"] = "x"
        broker.produce(topic: configuration.encryptInput, key: "002", value: try JSONCoding.encode(broken))
        #expect(await broker.waitFor(configuration.encryptOutput, count: 4))
        var encrypted: [MessageID: Message<EncryptResult>] = [:]
        var refused: [MessageID: Message<CarrierRejection<EncryptResult>>] = [:]
        for message in broker.messages(in: configuration.encryptOutput) {
            if let rejection = try? JSONCoding.decode(Message<CarrierRejection<EncryptResult>>.self, from: message.value) {
                refused[try #require(rejection.requestID)] = rejection
            } else {
                let result = try JSONCoding.decode(Message<EncryptResult>.self, from: message.value)
                encrypted[try #require(result.requestID)] = result
            }
        }
        #expect(refused.count == 1 && refused[broken.id]?.reason == .malformed, "\(refused)")
        #expect(await broker.waitFor("rejected", count: 1))

        var decrypts: [(Message<DecryptRequest>, Data?)] = []
        for ((body, _), request) in zip(bodies, requests) {
            let result = try #require(encrypted[request.id])
            #expect(result.decision != nil && result.bodyB64 != body.base64EncodedString())
            decrypts.append(
                (
                    Message(
                        DecryptRequest(headers: result.headers, bodyB64: result.bodyB64, method: result.method, path: result.path)
                    ), body
                ))
        }
        // The JSON envelope with one ciphertext byte changed: refused, no plaintext.
        var tampered = decrypts[0].0
        var bytes = try #require(Data(base64Encoded: tampered.bodyB64))
        let json = try #require(try JSONSerialization.jsonObject(with: bytes) as? [String: Any])
        var envelope = json
        let ciphertext = try #require(json["encrypted_data"] as? String, "\(json.keys.sorted())")
        var raw = try #require(Data(base64Encoded: ciphertext))
        raw[raw.startIndex] ^= 1
        envelope["encrypted_data"] = raw.base64EncodedString()
        bytes = try JSONSerialization.data(withJSONObject: envelope)
        tampered.header.id = MessageID.random()
        tampered.bodyB64 = bytes.base64EncodedString()
        decrypts.append((tampered, nil))
        for (request, _) in decrypts {
            broker.produce(topic: configuration.decryptInput, key: "002", value: try JSONCoding.encode(request))
        }
        #expect(await broker.waitFor(configuration.decryptOutput, count: decrypts.count))
        let decrypted = try Dictionary(
            uniqueKeysWithValues: broker.messages(in: configuration.decryptOutput).map {
                let result = try JSONCoding.decode(Message<DecryptResult>.self, from: $0.value)
                return (try #require(result.requestID), result)
            })
        for (request, body) in decrypts {
            let result = try #require(decrypted[request.id])
            if let body {
                #expect(result.status == .accepted && result.bodyB64.flatMap { Data(base64Encoded: $0) } == body)
            } else {
                #expect(result.status == .rejected && result.bodyB64 == nil && result.reason != nil)
            }
        }
    }
}
