import Foundation
import HallmarkTestSupport
import HallmarkCrypto
import HallmarkCore
import HallmarkMessages
import HallmarkKafka
import HallmarkPostgres
import Logging

/// One test's private world on the real broker and database: its own topics, consumer group,
/// schema and secrets folder, so tests never see each other's messages.
final class SignerHarness: Sendable {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    let id = String(UUID().uuidString.prefix(8)).lowercased()
    let kafka: KafkaConfiguration
    let producer: KafkaProducer
    let pool: PostgresPool
    let logger: Logger
    let secretsDirectory: URL

    var signInput: String { "test.signer.\(id).sign.in" }
    var signOutput: String { "test.signer.\(id).sign.out" }
    var verifyInput: String { "test.signer.\(id).verify.in" }
    var verifyOutput: String { "test.signer.\(id).verify.out" }
    var rejected: String { "test.signer.\(id).rejected" }
    var security: String { "test.signer.\(id).security" }
    var metricsTopic: String { "test.signer.\(id).metrics" }
    var schema: String { "signer_\(id)" }
    var group: String { "test-signer-\(id)" }

    /// Creates the topics and a secrets folder with `secrets` (version → secret).
    init(secrets: [String: String], signing: String) async throws {
        var logger = Logger(label: "signer-harness")
        logger.logLevel = .warning
        self.logger = logger
        kafka = try KafkaConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
        producer = try KafkaProducer(configuration: kafka, logger: logger)
        pool = PostgresPool(configuration: try PostgresConfiguration.fromEnvironment(), logger: logger)
        secretsDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("signer-secrets-\(id)")
        try FileManager.default.createDirectory(at: secretsDirectory, withIntermediateDirectories: true)
        try writeSecrets(secrets, signing: signing)
        try await KafkaAdmin(configuration: kafka, logger: logger).createTopics(
            [signInput, signOutput, verifyInput, verifyOutput, rejected, security, metricsTopic], partitions: 4)
    }

    /// Replaces the secrets folder's contents.
    func writeSecrets(_ secrets: [String: String], signing: String) throws {
        let fm = FileManager.default
        for name in (try? fm.contentsOfDirectory(atPath: secretsDirectory.path)) ?? [] {
            try fm.removeItem(at: secretsDirectory.appendingPathComponent(name))
        }
        for (version, secret) in secrets {
            try Data((secret + "\n").utf8).write(to: secretsDirectory.appendingPathComponent(version))
        }
        try Data(signing.utf8).write(to: secretsDirectory.appendingPathComponent("signing-version"))
    }

    /// Starts a signer in this harness's world and waits until its consumer started.
    func startSigner(_ name: String, _ extra: [String: String] = [:]) async throws -> ServiceProcess {
        let process = try ServiceProcess(
            "hallmark-signer", name: "\(id)-\(name)",
            environment: [
                "HALLMARK_SIGNER_SIGN_INPUT": signInput, "HALLMARK_SIGNER_SIGN_OUTPUT": signOutput,
                "HALLMARK_SIGNER_VERIFY_INPUT": verifyInput, "HALLMARK_SIGNER_VERIFY_OUTPUT": verifyOutput,
                "HALLMARK_SIGNER_SCHEMA": schema, "HALLMARK_SIGNER_SECRETS_DIR": secretsDirectory.path,
                "HALLMARK_GROUP_ID": group, "HALLMARK_REJECTED_TOPIC": rejected, "HALLMARK_SECURITY_TOPIC": security,
                "HALLMARK_METRICS_TOPIC": metricsTopic, "HALLMARK_INSTANCE": name,
                "HALLMARK_POSTGRES_POOL_SIZE": "16", "HALLMARK_MAX_IN_FLIGHT": "32", "HALLMARK_LOG_LEVEL": "info",
                "HALLMARK_METRICS_INTERVAL_MS": "1000",
            ].merging(extra) { _, new in new })
        try await process.waitForLog("stage started")
        return process
    }

    func send(_ topic: String, key: String?, _ value: [UInt8]) async throws {
        try await producer.send(topic: topic, key: key.map { Array($0.utf8) }, value: value)
    }

    func send<T: Encodable>(_ topic: String, key: String?, message: T) async throws {
        try await send(topic, key: key, try JSONCoding.encode(message))
    }

    /// Reads `topic` from the start until `done` holds or `timeout` passed; JSON objects only.
    func read(
        _ topic: String, timeout: Duration = .seconds(90),
        until done: ([[String: Any]]) -> Bool
    ) async throws -> [[String: Any]] {
        let consumer = try KafkaConsumer(
            configuration: kafka, groupID: "reader-\(UUID())", topics: [topic],
            bufferCapacity: 4096, logger: logger)
        try consumer.start()
        let timer = Task {
            try? await Task.sleep(for: timeout)
            consumer.beginClose()
        }
        var messages: [[String: Any]] = []
        for await message in consumer.messages {
            if let object = try? JSONSerialization.jsonObject(with: Data(message.value)) as? [String: Any] {
                messages.append(object)
            }
            if done(messages) { break }
        }
        timer.cancel()
        await consumer.close()
        return messages
    }

    /// Results on `topic` keyed by request id, read until every id in `ids` has one.
    func results(
        _ topic: String, for ids: [String], timeout: Duration = .seconds(90)
    ) async throws
        -> [String: [[String: Any]]]
    {
        let wanted = Set(ids)
        var seen = Set<String>()
        let all = try await read(topic, timeout: timeout) { messages in
            if let id = messages.last?["request_id"] as? String, wanted.contains(id) { seen.insert(id) }
            return seen.count == wanted.count
        }
        return Dictionary(grouping: all.filter { wanted.contains($0["request_id"] as? String ?? "") }) {
            $0["request_id"] as! String
        }
    }

    /// The same for requests made here, by id (their `request_id` as written).
    func results(
        _ topic: String, for ids: [MessageID], timeout: Duration = .seconds(90)
    ) async throws
        -> [MessageID: [[String: Any]]]
    {
        let byText = try await results(topic, for: ids.map(\.text), timeout: timeout)
        var out: [MessageID: [[String: Any]]] = [:]
        for id in ids { out[id] = byText[id.text] }
        return out
    }

    func close() async {
        await producer.close()
        pool.close()
        try? FileManager.default.removeItem(at: secretsDirectory)
    }
}
