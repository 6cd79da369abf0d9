import AggregatorCore
import AuthorityCore
import Foundation
import HallmarkCLICore
import HallmarkClient
import HallmarkCore
import HallmarkCrypto
import HallmarkKafka
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime
import HallmarkTestSupport
import Logging

/// One test's private Birthmark world on the real broker and database: an authority (its
/// schema, KEK, key tables and operator key) and an aggregator (its schema and checkpoint key)
/// wired to each other through the test's own token topics, with every output topic read from
/// the start.
final class AggregatorHarness: Sendable {
    let id: String
    let kafka: KafkaConfiguration
    let producer: KafkaProducer
    let pool: PostgresPool
    let logger: Logger
    let authority: AuthorityConfiguration
    let aggregator: AggregatorConfiguration
    let secretsFile: String
    let signingKeyFile: String
    let signingKey: CheckpointSigningKey
    /// The aggregator's key of token request ids (a new random one per world).
    let idKey: SubmissionIDKey
    let operatorKey: OperatorKeyFile
    let operatorKeysFile: String
    let watcher: AnswerWatcher
    let reader: Task<Void, Never>

    func topic(_ name: String) -> String { "test.agg.\(id).\(name)" }
    var rejected: String { topic("rejected") }
    var authorityRejected: String { topic("authority.rejected") }
    var security: String { topic("security") }

    init(tables: Int = 24) async throws {
        var logger = Logger(label: "aggregator-harness")
        logger.logLevel = .warning
        self.logger = logger
        let id = String(UUID().uuidString.prefix(8)).lowercased()
        self.id = id
        func topic(_ name: String) -> String { "test.agg.\(id).\(name)" }
        var a = AuthorityConfiguration()
        a.schema = "authority_agg_\(id)"
        a.provisionInput = topic("provision.in")
        a.provisionOutput = topic("provision.out")
        a.tokenInput = topic("token.requests")
        a.tokenOutput = topic("token.results")
        a.adminInput = topic("admin")
        a.securityTopic = topic("security")
        a.auditTopic = topic("audit")
        authority = a
        var g = AggregatorConfiguration()
        g.schema = "aggregator_\(id)"
        g.submissionInput = topic("submissions")
        g.submissionOutput = topic("submission.results")
        g.tokenRequests = a.tokenInput
        g.tokenResults = a.tokenOutput
        g.checkpoints = topic("checkpoints")
        g.verifyInput = topic("verify.in")
        g.verifyOutput = topic("verify.out")
        g.claimInput = topic("claims.in")
        g.claimOutput = topic("claims.out")
        g.auditTopic = topic("aggregator.audit")
        g.securityTopic = a.securityTopic
        aggregator = g
        kafka = try KafkaConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
        producer = try KafkaProducer(configuration: kafka, logger: logger)
        pool = PostgresPool(configuration: try PostgresConfiguration.fromEnvironment(), logger: logger)
        let outputs = [
            a.provisionOutput, g.submissionOutput, g.checkpoints, g.verifyOutput, g.claimOutput, a.tokenInput,
            a.tokenOutput, topic("rejected"), topic("authority.rejected"), a.securityTopic, a.auditTopic,
        ]
        try await KafkaAdmin(configuration: kafka, logger: logger).createTopics(
            outputs + [a.provisionInput, a.adminInput, g.submissionInput, g.verifyInput, g.claimInput, topic("metrics")],
            partitions: 4)
        let temp = FileManager.default.temporaryDirectory
        secretsFile = temp.appendingPathComponent("aggregator-authority-\(id).secrets").path
        _ = FileManager.default.createFile(atPath: secretsFile, contents: Data(try AuthoritySecrets.generateText().utf8))
        operatorKey = try OperatorKeyFile.generate(keyID: "test-operator")
        operatorKeysFile = temp.appendingPathComponent("aggregator-authority-\(id).operators").path
        _ = FileManager.default.createFile(atPath: operatorKeysFile, contents: Data((try operatorKey.publicEntry + "\n").utf8))
        signingKeyFile = temp.appendingPathComponent("aggregator-\(id).key").path
        signingKey = try CheckpointSigningKey.generate()
        try signingKey.write(to: signingKeyFile)
        idKey = try SubmissionIDKey.generate()
        try await Self.prepareAuthority(
            schema: a.schema, secrets: try AuthoritySecrets.fromEnvironment(["HALLMARK_AUTHORITY_KEK_FILE": secretsFile]),
            tables: tables, pool: pool, logger: logger)
        let w = try AnswerWatcher(kafka: kafka, topics: outputs, fromStart: true, logger: logger)
        watcher = w
        reader = Task { await w.run() }
    }

    /// The authority's secrets (its KEK and index key), as its process reads them.
    func authoritySecrets() throws -> AuthoritySecrets {
        try AuthoritySecrets.fromEnvironment(["HALLMARK_AUTHORITY_KEK_FILE": secretsFile])
    }

    /// Starts an authority in this world and waits until it consumes.
    func startAuthority(_ name: String) async throws -> ServiceProcess {
        let c = authority
        let process = try ServiceProcess(
            "hallmark-authority", name: "\(id)-\(name)",
            environment: c.placementEnvironment.merging([
                "HALLMARK_REJECTED_TOPIC": authorityRejected,
                "HALLMARK_METRICS_TOPIC": topic("metrics"), "HALLMARK_GROUP_ID": "test-agg-authority-\(id)",
                "HALLMARK_INSTANCE": name, "HALLMARK_AUTHORITY_KEK_FILE": secretsFile,
                "HALLMARK_AUTHORITY_DEVICE_CACHE_TTL_MS": "300", "HALLMARK_AUTHORITY_OPERATOR_KEYS_FILE": operatorKeysFile,
                "HALLMARK_POSTGRES_POOL_SIZE": "8", "HALLMARK_LOG_LEVEL": "info",
            ]) { _, new in new })
        try await process.waitForLog("stage started")
        return process
    }

    /// Starts an aggregator in this world and waits until its three stages consume.
    func startAggregator(_ name: String, _ extra: [String: String] = [:]) async throws -> ServiceProcess {
        let g = aggregator
        let process = try ServiceProcess(
            "hallmark-aggregator", name: "\(id)-\(name)",
            environment: g.placementEnvironment.merging([
                "HALLMARK_AGGREGATOR_SIGNING_KEY_FILE": signingKeyFile, "HALLMARK_AGGREGATOR_ID_KEY": idKey.base64,
                "HALLMARK_REJECTED_TOPIC": rejected,
                "HALLMARK_METRICS_TOPIC": topic("metrics"), "HALLMARK_GROUP_ID": "test-aggregator-\(id)",
                "HALLMARK_INSTANCE": name, "HALLMARK_POSTGRES_POOL_SIZE": "8", "HALLMARK_LOG_LEVEL": "info",
            ]) { _, new in new }.merging(extra) { _, new in new })
        try await process.waitForLog("stage started", count: 3)
        return process
    }

    /// An authority and an aggregator, both consuming.
    func startBoth(_ extra: [String: String] = [:]) async throws -> (authority: ServiceProcess, aggregator: ServiceProcess) {
        (try await startAuthority("a"), try await startAggregator("g", extra))
    }

    /// A camera provisioned through the running authority; with `certificate`, in certificate
    /// mode too (DESIGN BM-CERT).
    func provisioned(_ serial: String, certificate: Bool = false) async throws -> ProvisioningFile {
        guard
            case .provisioned(let file) = try await CameraProvisioner(
                producer: producer, watcher: watcher, topic: authority.provisionInput
            )
            .provision(serial: serial, certificate: certificate, timeout: .seconds(60))
        else { throw HarnessError("\(serial) rejected") }
        return file
    }

    /// Sends submissions, keyed by their id (as a camera would pick any key), or by their
    /// capture (``Submission/captureKey``, as the edge keys them) when `byCapture`.
    func send(_ submissions: [Message<Submission>], byCapture: Bool = false) async throws {
        try await producer.send(
            submissions.map {
                KafkaOutgoingMessage(
                    topic: aggregator.submissionInput, key: byCapture ? $0.body.captureKey : Array($0.id.text.utf8),
                    value: try JSONCoding.encode($0))
            })
    }

    /// The answers to these submission ids, waiting up to `timeout` for all of them.
    func answers(_ ids: [MessageID], timeout: Duration = .seconds(120)) async -> [MessageID: Message<SubmissionResult>] {
        _ = await watcher.wait(timeout: timeout) { w in ids.allSatisfy { !w.answers(for: $0).isEmpty } }
        var out: [MessageID: Message<SubmissionResult>] = [:]
        for id in ids {
            if let bytes = watcher.answers(for: id).first,
                let result = try? JSONCoding.decode(Message<SubmissionResult>.self, from: bytes)
            {
                out[id] = result
            }
        }
        return out
    }

    /// Every submission result for a request id so far, as JSON objects (they decode whatever
    /// their reason); the watcher also files security events under their `request_id`.
    func answerObjects(_ id: MessageID) -> [[String: Any]] {
        watcher.answers(for: id).compactMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
            .filter { $0["schema"] as? String == SubmissionResult.schemaName }
    }

    /// The bytes of every submission result for a request id so far.
    func resultBytes(_ id: MessageID) -> [[UInt8]] {
        watcher.answers(for: id).filter {
            (try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any])?["schema"] as? String
                == SubmissionResult.schemaName
        }
    }

    /// Sends a submission and waits until it has `count` answers; returns them all as JSON objects.
    func submitRaw(_ submission: Message<Submission>, answers count: Int = 1) async throws -> [[String: Any]] {
        try await send([submission])
        guard await watcher.wait(timeout: .seconds(60), until: { [self] _ in answerObjects(submission.id).count >= count }) else {
            throw HarnessError("no answer \(count) to submission \(submission.id)")
        }
        return answerObjects(submission.id)
    }

    /// Submits and waits for the one answer.
    func submit(_ submission: Message<Submission>) async throws -> Message<SubmissionResult> {
        try await send([submission])
        guard let answer = await answers([submission.id], timeout: .seconds(60))[submission.id] else {
            throw HarnessError("no answer to submission \(submission.id)")
        }
        return answer
    }

    /// Asks the log and waits for the answer.
    func ask(_ request: Message<LogVerifyRequest>) async throws -> Message<LogVerifyResult> {
        try await producer.send(topic: aggregator.verifyInput, key: nil, value: try JSONCoding.encode(request))
        guard let bytes = await watcher.answer(for: request.id, on: aggregator.verifyOutput, timeout: .seconds(60)) else {
            throw HarnessError("no answer to verification \(request.id)")
        }
        return try JSONCoding.decode(Message<LogVerifyResult>.self, from: bytes)
    }

    /// Every checkpoint published so far, by size.
    func checkpoints() -> [UInt64: Message<Checkpoint>] {
        var out: [UInt64: Message<Checkpoint>] = [:]
        for bytes in watcher.messages(on: aggregator.checkpoints) {
            if let c = try? JSONCoding.decode(Message<Checkpoint>.self, from: bytes) { out[c.treeSize] = c }
        }
        return out
    }

    /// Sends a signed admin command to the authority.
    func sendAdmin(_ command: Message<AdminCommand>) async throws {
        try await producer.send(
            topic: authority.adminInput, key: Array("admin".utf8),
            value: try JSONCoding.encode(try operatorKey.sign(command)))
    }

    /// The log's leaves as stored: (index, image hash hex), by index.
    func storedLeaves() async throws -> [(Int64, String)] {
        try await Self.storedLeaves(schema: aggregator.schema, pool: pool)
    }

    /// The leaves of the log in `schema`: (index, image hash hex), by index.
    static func storedLeaves(schema: String, pool: PostgresPool) async throws -> [(Int64, String)] {
        try await pool.query(
            """
            SELECT leaf_index, encode(image_hash, 'hex') FROM \(unescaped: schema).leaves ORDER BY leaf_index
            """
        ).decode((Int64, String).self)
    }

    /// An authority's schema, migrated, with `tables` key tables sealed under `secrets`.
    static func prepareAuthority(
        schema: String, secrets: AuthoritySecrets, tables: Int, pool: PostgresPool, logger: Logger
    ) async throws {
        try await StageDatabase(pool: pool, schema: schema).migrate(AuthorityMigrations.all(schema: schema), logger: logger)
        try await TableGenerator(pool: pool, schema: schema, secrets: secrets).generate(count: tables)
    }

    func close() async {
        reader.cancel()
        await watcher.close()
        _ = await producer.close()
        for schema in [aggregator.schema, authority.schema] {
            _ = try? await pool.execute("DROP SCHEMA IF EXISTS \(unescaped: schema) CASCADE")
        }
        pool.close()
        for file in [secretsFile, operatorKeysFile, signingKeyFile] { try? FileManager.default.removeItem(atPath: file) }
    }
}
