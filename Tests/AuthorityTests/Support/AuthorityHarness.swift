import HallmarkClient
import AuthorityCore
import HallmarkTestSupport
import Foundation
import HallmarkCLICore
import HallmarkCrypto
import HallmarkCore
import HallmarkMessages
import HallmarkKafka
import HallmarkPostgres
import HallmarkRuntime
import Logging

/// One test's private authority on the real broker and database: its own topics, group,
/// schema and secrets, tables generated in-process, answers collected from the start.
final class AuthorityHarness: Sendable {
    let id: String
    let kafka: KafkaConfiguration
    let producer: KafkaProducer
    let pool: PostgresPool
    let logger: Logger
    let configuration: AuthorityConfiguration
    let secretsFile: String
    /// The operator key admin commands are signed with, and the authority's keys file (its public entry).
    let operatorKey: OperatorKeyFile
    let operatorKeysFile: String
    let watcher: AnswerWatcher
    let reader: Task<Void, Never>

    var rejected: String { "test.authority.\(id).rejected" }
    var metrics: String { "test.authority.\(id).metrics" }

    init(tables: Int = 24) async throws {
        var logger = Logger(label: "authority-harness")
        logger.logLevel = .warning
        self.logger = logger
        var c = AuthorityConfiguration()
        let id = String(UUID().uuidString.prefix(8)).lowercased()
        self.id = id
        c.schema = "authority_\(id)"
        c.provisionInput = "test.authority.\(id).provision.in"
        c.provisionOutput = "test.authority.\(id).provision.out"
        c.tokenInput = "test.authority.\(id).token.in"
        c.tokenOutput = "test.authority.\(id).token.out"
        c.adminInput = "test.authority.\(id).admin"
        c.securityTopic = "test.authority.\(id).security"
        c.auditTopic = "test.authority.\(id).audit"
        c.privacy = PrivacyTopics(requests: "test.authority.\(id).privacy.in", results: "test.authority.\(id).privacy.out")
        configuration = c
        kafka = try KafkaConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
        producer = try KafkaProducer(configuration: kafka, logger: logger)
        pool = PostgresPool(configuration: try PostgresConfiguration.fromEnvironment(), logger: logger)
        let rejectedTopic = "test.authority.\(id).rejected"
        try await KafkaAdmin(configuration: kafka, logger: logger).createTopics(
            c.topics + [c.securityTopic, rejectedTopic, "test.authority.\(id).metrics"], partitions: 4)
        secretsFile = FileManager.default.temporaryDirectory.appendingPathComponent("authority-\(id).secrets").path
        _ = FileManager.default.createFile(atPath: secretsFile, contents: Data(try AuthoritySecrets.generateText().utf8))
        operatorKey = try OperatorKeyFile.generate(keyID: "test-operator")
        operatorKeysFile = FileManager.default.temporaryDirectory.appendingPathComponent("authority-\(id).operators").path
        _ = FileManager.default.createFile(atPath: operatorKeysFile, contents: Data((try operatorKey.publicEntry + "\n").utf8))
        try await StageDatabase(pool: pool, schema: c.schema).migrate(
            AuthorityMigrations.all(schema: c.schema),
            logger: logger)
        try await TableGenerator(
            pool: pool, schema: c.schema,
            secrets: try AuthoritySecrets.fromEnvironment(["HALLMARK_AUTHORITY_KEK_FILE": secretsFile])
        )
        .generate(count: tables)
        let w = try AnswerWatcher(
            kafka: kafka,
            topics: [
                c.provisionOutput, c.tokenOutput, c.securityTopic, rejectedTopic,
                c.auditTopic, c.privacy.results,
            ],
            fromStart: true, logger: logger)
        watcher = w
        reader = Task { await w.run() }
    }

    func secrets() throws -> AuthoritySecrets {
        try AuthoritySecrets.fromEnvironment(["HALLMARK_AUTHORITY_KEK_FILE": secretsFile])
    }

    /// Starts an authority process in this harness's world and waits until it consumes.
    func start(_ name: String, _ extra: [String: String] = [:]) async throws -> ServiceProcess {
        let c = configuration
        let process = try ServiceProcess(
            "hallmark-authority", name: "\(id)-\(name)",
            environment: c.placementEnvironment.merging([
                "HALLMARK_REJECTED_TOPIC": rejected,
                "HALLMARK_METRICS_TOPIC": metrics, "HALLMARK_METRICS_INTERVAL_MS": "2000",
                "HALLMARK_GROUP_ID": "test-authority-\(id)", "HALLMARK_INSTANCE": name,
                "HALLMARK_AUTHORITY_KEK_FILE": secretsFile, "HALLMARK_AUTHORITY_DEVICE_CACHE_TTL_MS": "300",
                "HALLMARK_AUTHORITY_OPERATOR_KEYS_FILE": operatorKeysFile,
                "HALLMARK_POSTGRES_POOL_SIZE": "12", "HALLMARK_MAX_IN_FLIGHT": "32", "HALLMARK_LOG_LEVEL": "info",
            ]) { _, new in new }.merging(extra) { _, new in new })
        try await process.waitForLog("stage started")
        return process
    }

    /// Provisions a camera through the running authority.
    func provision(_ serial: String, nucHash: Data? = nil) async throws -> CameraProvisioner.Outcome {
        try await CameraProvisioner(producer: producer, watcher: watcher, topic: configuration.provisionInput)
            .provision(serial: serial, nucHash: nucHash, timeout: .seconds(60))
    }

    /// Sends a provisioning request as given and waits for its result.
    func provisionRaw(_ request: Message<ProvisionRequest>) async throws -> Message<ProvisionResult> {
        try await producer.send(topic: configuration.provisionInput, key: nil, value: try JSONCoding.encode(request))
        guard
            let answer = await watcher.answer(
                for: request.id, on: configuration.provisionOutput,
                timeout: .seconds(60))
        else {
            throw HarnessError("no provisioning answer to \(request.id)")
        }
        return try JSONDecoder().decode(Message<ProvisionResult>.self, from: Data(answer))
    }

    func provisioned(_ serial: String) async throws -> ProvisioningFile {
        guard case .provisioned(let file) = try await provision(serial) else { throw HarnessError("\(serial) rejected") }
        return file
    }

    /// Sends raw request bytes (with envelope id `id`) and waits for the token result.
    func validate(_ bytes: [UInt8], id: MessageID, key: String = "camera") async throws -> Message<TokenResult> {
        try await producer.send(topic: configuration.tokenInput, key: Array(key.utf8), value: bytes)
        guard let answer = await watcher.answer(for: id, on: configuration.tokenOutput, timeout: .seconds(60)) else {
            throw HarnessError("no answer to \(id)")
        }
        return try JSONDecoder().decode(Message<TokenResult>.self, from: Data(answer))
    }

    func validate(_ token: BirthmarkCameraToken, key: String = "camera") async throws -> Message<TokenResult> {
        let id = MessageID.random()
        return try await validate(try ProvisioningFile.requestBytes(token, id: id), id: id, key: key)
    }

    func validate(_ token: BirthmarkMobileToken) async throws -> Message<TokenResult> {
        let id = MessageID.random()
        return try await validate(try ProvisioningFile.requestBytes(token, id: id), id: id)
    }

    /// Sends a JSON object (envelope fields added) and waits for its answer.
    func validate(json body: [String: Any]) async throws -> Message<TokenResult> {
        let id = MessageID.random()
        var object = body
        object["schema"] = object["schema"] ?? TokenRequest.schemaName
        object["id"] = id.text
        object["produced_at"] = Timestamp.now().text
        let bytes = try JSONSerialization.data(withJSONObject: object)
        return try await validate(Array(bytes), id: id)
    }

    /// Sends `command` signed with the harness's operator key. Admin commands share one Kafka
    /// key, so they are processed in the order sent.
    func sendAdmin(_ command: Message<AdminCommand>) async throws {
        try await sendAdmin(bytes: try JSONCoding.encode(try operatorKey.sign(command)))
    }

    /// Sends an admin command's bytes as they are.
    func sendAdmin(bytes: [UInt8]) async throws {
        try await producer.send(topic: configuration.adminInput, key: Array("admin".utf8), value: bytes)
    }

    /// Rejected records seen so far, as JSON objects.
    func rejectedRecords() -> [[String: Any]] {
        watcher.messages(on: rejected).compactMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
    }

    /// Waits for the rejected record of the message `id`.
    func waitForRejection(of id: String, timeout: Duration = .seconds(60)) async -> [String: Any]? {
        _ = await watcher.wait(timeout: timeout) { [self] _ in rejectedRecords().contains { $0["original_id"] as? String == id } }
        return rejectedRecords().first { $0["original_id"] as? String == id }
    }

    /// The same for a message made here (its id as written).
    func waitForRejection(of id: MessageID, timeout: Duration = .seconds(60)) async -> [String: Any]? {
        await waitForRejection(of: id.text, timeout: timeout)
    }

    /// Security events seen so far, decoded.
    func securityEvents() -> [Message<SecurityEvent>] {
        watcher.messages(on: configuration.securityTopic).compactMap {
            try? JSONDecoder().decode(Message<SecurityEvent>.self, from: Data($0))
        }
    }

    func waitForSecurity(_ kind: SecurityEvent.Kind, count: Int = 1, timeout: Duration = .seconds(30)) async -> Bool {
        await watcher.wait(timeout: timeout) { [self] _ in securityEvents().filter { $0.event == kind }.count >= count }
    }

    func close() async {
        reader.cancel()
        await watcher.close()
        _ = await producer.close()
        _ = try? await pool.execute("DROP SCHEMA IF EXISTS \(unescaped: configuration.schema) CASCADE")
        pool.close()
        try? FileManager.default.removeItem(atPath: secretsFile)
        try? FileManager.default.removeItem(atPath: operatorKeysFile)
    }
}
