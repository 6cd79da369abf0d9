import Foundation
import HallmarkClient
import HallmarkCore
import HallmarkCrypto
import HallmarkKafka
import HallmarkMessages
import HallmarkTestSupport
import Logging
import Testing

/// One test's private gateway world on the real broker: its own topics, group, secrets and
/// (for chaining) signer, with every answer topic read from the start by an ``AnswerWatcher``.
final class GatewayHarness: Sendable {
    let id: String
    let kafka: KafkaConfiguration
    let producer: KafkaProducer
    let logger: Logger
    let secretsDirectory: URL
    let watcher: AnswerWatcher
    let reader: Task<Void, Never>
    /// The security topic, watched apart: its events carry the request ids of the messages
    /// they are about, which would count as those messages' answers.
    let events: AnswerWatcher
    let eventReader: Task<Void, Never>
    /// The KEK text sealing session keys (one version).
    let kek: String

    func topic(_ name: String) -> String { Self.topic(id, name) }
    static func topic(_ id: String, _ name: String) -> String { "test.gateway.\(id).\(name)" }
    var encryptInput: String { topic("encrypt.in") }
    var encryptOutput: String { topic("encrypt.out") }
    var decryptInput: String { topic("decrypt.in") }
    var decryptOutput: String { topic("decrypt.out") }
    var rejected: String { topic("rejected") }
    var metrics: String { topic("metrics") }
    var signInput: String { topic("sign.in") }
    var signOutput: String { topic("sign.out") }
    var verifyOutput: String { topic("verify.out") }

    init(secrets: [String: String] = ["v1": "test-secret"], signing: String = "v1") async throws {
        let id = String(UUID().uuidString.prefix(8)).lowercased()
        self.id = id
        var logger = Logger(label: "gateway-harness")
        logger.logLevel = .warning
        self.logger = logger
        kafka = try KafkaConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
        producer = try KafkaProducer(configuration: kafka, logger: logger)
        secretsDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-secrets-\(id)")
        try FileManager.default.createDirectory(at: secretsDirectory, withIntermediateDirectories: true)
        for (version, secret) in secrets {
            try Data((secret + "\n").utf8).write(to: secretsDirectory.appendingPathComponent(version))
        }
        try Data(signing.utf8).write(to: secretsDirectory.appendingPathComponent("signing-version"))
        kek = try KeyEncryptionFile.generateText(title: "test", index: false)
        let answers = [
            "encrypt.out", "decrypt.out", "rejected", "metrics", "sign.out", "verify.out", "handshake.out",
            "plaintext.out", "outbound.out",
        ].map { Self.topic(id, $0) }
        try await KafkaAdmin(configuration: kafka, logger: logger).createTopics(
            answers
                + [
                    "encrypt.in", "decrypt.in", "sign.in", "verify.in", "security", "handshake.in", "inbound.in",
                    "outbound.in",
                ].map { Self.topic(id, $0) }, partitions: 4)
        let w = try AnswerWatcher(kafka: kafka, topics: answers, fromStart: true, logger: logger)
        watcher = w
        reader = Task { await w.run() }
        let e = try AnswerWatcher(kafka: kafka, topics: [Self.topic(id, "security")], fromStart: true, logger: logger)
        events = e
        eventReader = Task { await e.run() }
    }

    /// Starts a gateway in this world and waits until its stage consumes.
    func startGateway(_ name: String, _ extra: [String: String] = [:]) async throws -> ServiceProcess {
        let process = try ServiceProcess(
            "hallmark-gateway", name: "\(id)-\(name)",
            environment: [
                "HALLMARK_GATEWAY_ENCRYPT_INPUT": encryptInput, "HALLMARK_GATEWAY_ENCRYPT_OUTPUT": encryptOutput,
                "HALLMARK_GATEWAY_DECRYPT_INPUT": decryptInput, "HALLMARK_GATEWAY_DECRYPT_OUTPUT": decryptOutput,
                "HALLMARK_GATEWAY_SECRETS_DIR": secretsDirectory.path, "HALLMARK_GROUP_ID": "test-gateway-\(id)-\(name)",
                "HALLMARK_REJECTED_TOPIC": rejected, "HALLMARK_SECURITY_TOPIC": topic("security"),
                "HALLMARK_METRICS_TOPIC": metrics, "HALLMARK_METRICS_INTERVAL_MS": "1000", "HALLMARK_INSTANCE": name,
                "HALLMARK_MAX_IN_FLIGHT": "32", "HALLMARK_LOG_LEVEL": "info",
                "HALLMARK_GATEWAY_HANDSHAKE_INPUT": topic("handshake.in"),
                "HALLMARK_GATEWAY_HANDSHAKE_OUTPUT": topic("handshake.out"),
                "HALLMARK_GATEWAY_INBOUND_INPUT": topic("inbound.in"),
                "HALLMARK_GATEWAY_PLAINTEXT_OUTPUT": topic("plaintext.out"),
                "HALLMARK_GATEWAY_OUTBOUND_INPUT": topic("outbound.in"),
                "HALLMARK_GATEWAY_OUTBOUND_OUTPUT": topic("outbound.out"),
                "HALLMARK_GATEWAY_SCHEMA": "gateway_\(id)", "HALLMARK_GATEWAY_KEK": kek,
            ].merging(extra) { _, new in new })
        // Two stages: ENC-1 envelopes and E2EE-1 sessions.
        try await process.waitForLog("stage started", count: 2)
        return process
    }

    /// Starts a signer that signs what arrives on `signInput` (encrypt results included) and
    /// verifies its own sign results.
    func startSigner(_ name: String) async throws -> ServiceProcess {
        let process = try ServiceProcess(
            "hallmark-signer", name: "\(id)-\(name)",
            environment: [
                "HALLMARK_SIGNER_SIGN_INPUT": signInput, "HALLMARK_SIGNER_SIGN_OUTPUT": topic("verify.in"),
                "HALLMARK_SIGNER_VERIFY_INPUT": topic("verify.in"), "HALLMARK_SIGNER_VERIFY_OUTPUT": verifyOutput,
                "HALLMARK_SIGNER_SIGN_SCHEMAS": "\(SignRequest.schemaName),\(EncryptResult.schemaName)",
                "HALLMARK_SIGNER_SCHEMA": "signer_\(id)", "HALLMARK_SIGNER_SECRETS_DIR": secretsDirectory.path,
                "HALLMARK_GROUP_ID": "test-gateway-signer-\(id)", "HALLMARK_REJECTED_TOPIC": rejected,
                "HALLMARK_SECURITY_TOPIC": topic("security"), "HALLMARK_METRICS_TOPIC": topic("signer.metrics"),
                "HALLMARK_INSTANCE": name, "HALLMARK_LOG_LEVEL": "info",
            ])
        try await process.waitForLog("stage started")
        return process
    }

    func send(_ topic: String, key: String? = nil, _ value: [UInt8]) async throws {
        try await producer.send(topic: topic, key: key.map { Array($0.utf8) }, value: value)
    }

    func send<T: Encodable>(_ topic: String, key: String? = nil, message: T) async throws {
        try await send(topic, key: key, try JSONCoding.encode(message))
    }

    /// The first answer to `id` on `topic`, decoded as a whole message with a `Body` body.
    func answer<Body: MessageBody>(
        _ type: Body.Type, to id: String, on topic: String,
        timeout: Duration = .seconds(90)
    ) async throws -> Message<Body> {
        guard let bytes = await watcher.answer(for: id, on: topic, timeout: timeout) else {
            throw HarnessError("no answer to \(id) on \(topic)")
        }
        return try JSONCoding.decode(Message<Body>.self, from: bytes)
    }

    /// The first answer to request `id`, sent without a correlation id, on `topic`.
    func answer<Body: MessageBody>(
        _ type: Body.Type, to id: MessageID, on topic: String,
        timeout: Duration = .seconds(90)
    ) async throws -> Message<Body> {
        try await answer(type, to: id.text, on: topic, timeout: timeout)
    }

    /// Checks the answer to `id` on `topic`, as it came off the broker, against its JSON Schema.
    func validateAnswer(to id: String, on topic: String, against schema: String) throws {
        let bytes = try #require(watcher.messages(on: topic).first { AnswerWatcher.requestId($0) == id })
        try SchemaCheck.validate(JSONSerialization.jsonObject(with: Data(bytes)), against: schema)
    }

    /// The same for request `id`, sent without a correlation id.
    func validateAnswer(to id: MessageID, on topic: String, against schema: String) throws {
        try validateAnswer(to: id.text, on: topic, against: schema)
    }

    /// Rejected records so far, by the id of the message they reject.
    func rejections() -> [String: [[String: Any]]] {
        let records = watcher.messages(on: rejected).compactMap {
            try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]
        }
        return Dictionary(grouping: records) { $0["original_id"] as? String ?? "" }
    }

    /// The security events so far, as they came off the broker: decoded, and raw.
    func securityEvents() -> [(event: Message<SecurityEvent>, raw: [UInt8])] {
        events.messages(on: topic("security")).compactMap { raw in
            (try? JSONCoding.decode(Message<SecurityEvent>.self, from: raw)).map { ($0, raw) }
        }
    }

    /// The latest value of counter `name` with `dimensions` in the gateway's metrics snapshots.
    func counter(_ name: String, _ dimensions: [String: String]) -> Double? {
        for bytes in watcher.messages(on: metrics).reversed() {
            guard let snapshot = try? JSONCoding.decode(Message<MetricsSnapshot>.self, from: bytes) else { continue }
            if let c = snapshot.counters.first(where: { counter in
                counter.name == name && dimensions.allSatisfy { counter.dimensions[$0.key] == $0.value }
            }) {
                return c.value
            }
        }
        return nil
    }

    func close() async {
        await watcher.close()
        await reader.value
        await events.close()
        await eventReader.value
        await producer.close()
        try? FileManager.default.removeItem(at: secretsDirectory)
    }
}
