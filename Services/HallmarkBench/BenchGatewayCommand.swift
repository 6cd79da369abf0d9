import ArgumentParser
import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkKafka
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime
import Logging

/// `hallmark bench gateway`: one `hallmark-gateway` process on the real broker and
/// PostgreSQL, each figure beside its in-process bound measured in the same run:
/// E2EE-1 inbound all at once and at a steady pace (sessions made by real handshakes, every
/// counter checked and recorded) against HKDF + AES-GCM open alone; ENC-1 JSON encrypt
/// requests against batched PBKDF2 on every core; ENC-1 on 1 MB ZIP bodies against AES-GCM
/// sealing alone.
package struct BenchGatewayCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "E2EE-1 and ENC-1 throughput and latency through the gateway against their in-process bounds.")

    @Option(help: "Sessions the inbound messages are spread over (each its own Kafka key).") var sessions = 64
    @Option(help: "Inbound messages sent at once.") var messages = 50_000
    @Option(help: "Inbound messages per second in the paced phase.") var rate = 5_000.0
    @Option(help: "Seconds of the paced phase whose latencies count.") var pacedSeconds = 10.0
    @Option(help: "Seconds of paced load before latencies count.") var warmupSeconds = 3.0
    @Option(help: "ENC-1 JSON encrypt requests (default: about ten seconds of the PBKDF2 bound).") var encryptRequests: Int?
    @Option(help: "ENC-1 ZIP bodies.") var zips = 24
    @Option(help: "Bytes of each ZIP body.") var zipBytes = 1_000_000
    @Option(help: "Partitions of the bench topics (default: HALLMARK_KAFKA_PARTITIONS).")
    var partitions = BenchCommand.defaultPartitions
    @Option(help: "Producer linger.ms of the gateway and the load generator (default: HALLMARK_KAFKA_LINGER_MS, else 5).")
    var lingerMs: Int?
    @Option(help: "The hallmark-gateway binary (default: beside this hallmark binary).") var gatewayBinary: String?

    package init() {}

    package func run() async throws {
        var logger = Logger(label: "hallmark.bench")
        logger.logLevel = .warning
        var kafka = try KafkaConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
        if let lingerMs { kafka.lingerMilliseconds = lingerMs }
        // A 1 MB ZIP is ~1.4 MB as base64 in a request.
        kafka.maxMessageBytes = max(kafka.maxMessageBytes, 4 * zipBytes)
        let binary =
            gatewayBinary.map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("hallmark-gateway")
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let run = String(UUID().lowercasedText.prefix(8))
        func topic(_ name: String) -> String { GatewayBench.topic(name, run: run) }
        let schema = "bench_gateway_\(run)"
        let names = [
            "encrypt.in", "encrypt.out", "decrypt.in", "decrypt.out", "handshake.in", "handshake.out",
            "inbound.in", "plaintext.out", "outbound.in", "outbound.out",
        ]
        try await KafkaAdmin(configuration: kafka, logger: logger)
            .createTopics(names.map(topic) + [topic("plaintext.paced")], partitions: partitions)
        // Throw-away secrets, never printed.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hallmark-bench-gateway-\(run)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(Base64.encode(try SecureRandom.bytes(32)).utf8).write(to: folder.appendingPathComponent("bench"))
        try Data("bench".utf8).write(to: folder.appendingPathComponent("signing-version"))
        var env: [String: String] = [
            "HALLMARK_GATEWAY_SECRETS_DIR": folder.path,
            "HALLMARK_GATEWAY_KEK": try KeyEncryptionFile.generateText(title: "bench", index: false),
            "HALLMARK_GATEWAY_SCHEMA": schema, "HALLMARK_GROUP_ID": "bench-gateway-\(run)",
            "HALLMARK_INSTANCE": "bench-gateway", "HALLMARK_LOG_LEVEL": "info",
            "HALLMARK_MAX_MESSAGE_BYTES": String(kafka.maxMessageBytes),
            "HALLMARK_KAFKA_LINGER_MS": String(kafka.lingerMilliseconds),
            "HALLMARK_REPLY_TOPICS": topic("plaintext.paced"),
        ]
        for name in names {
            // encrypt.in → HALLMARK_GATEWAY_ENCRYPT_INPUT, plaintext.out → …_PLAINTEXT_OUTPUT
            let variable = name.replacingOccurrences(of: ".in", with: "_INPUT").replacingOccurrences(of: ".out", with: "_OUTPUT")
                .uppercased()
            env["HALLMARK_GATEWAY_\(variable)"] = topic(name)
        }
        let gateway = try BenchProcess(binary: binary, environment: env)
        defer { gateway.stop() }
        try await gateway.waitForLog("stage started")
        // The load generator's own producer is not idempotent: librdkafka's idempotent producer
        // keeps one produce request in flight and spins its broker thread while it waits
        // (~0.4 cores at 5,000 msgs/s here), which would bill the gateway for the client's CPU.
        // Per-key order still holds: nothing is retried unless the broker fails a request.
        var load = kafka
        load.properties["enable.idempotence"] = "false"
        load.properties["max.in.flight.requests.per.connection"] = "1"
        let producer = try KafkaProducer(configuration: load, logger: logger)
        let bench = GatewayBench(kafka: kafka, logger: logger, run: run, gateway: gateway, producer: producer)
        printNow(
            "hallmark bench gateway: \(cores) cores, \(partitions) partitions per topic, linger \(kafka.lingerMilliseconds) ms, SHA-NI \(PBKDF2.hasSHAExtensions)"
        )

        try await sessionPhases(bench)
        try await envelopePhases(bench, cores: cores)
        await producer.close()
        gateway.stop()
        // The gateway made its schema with HALLMARK_POSTGRES_URL's role; the same role drops it.
        let pool = PostgresPool(configuration: try PostgresConfiguration.fromEnvironment(), logger: logger)
        await pool.dropBenchSchemas(schema)
        pool.close()
    }
}
