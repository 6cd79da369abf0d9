import ArgumentParser
import AuthorityCore
import Foundation
import HallmarkCrypto
import HallmarkEnvelope
import HallmarkKafka
import HallmarkPostgres
import HallmarkRuntime
import Logging
import Metrics

/// `hallmark bench authority`: token validations through the real broker and PostgreSQL
/// (the authority stage in this process, with its own schema and topics), beside the
/// in-process rate of derive + open alone, in one run.
public struct BenchAuthorityCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "authority", abstract: "Authority validations/s and latency vs in-process derive + open.")

    @Option(help: "Token validations to send.") var count = 20_000
    @Option(help: "Provisioned cameras the tokens come from.") var cameras = 50
    @Option(help: "Key tables to generate.") var tables = 100
    @Option(help: "Stage messages in flight.") var inFlight = 256
    @Option(help: "Partitions of the bench topics.") var partitions = 4
    @Option(help: "PostgreSQL connections (each message holds one for its transaction).") var poolSize = 48
    @Flag(help: "Key token requests by camera serial (per-camera order) instead of by request.") var keyByCamera = false

    public init() {}

    public func run() async throws {
        let registry = MetricsRegistry()
        MetricsSystem.bootstrap(registry)
        var logger = Logger(label: "hallmark.bench")
        logger.logLevel = .warning
        let env = ProcessInfo.processInfo.environment
        let kafka = try KafkaConfiguration.fromEnvironment(env)
        var pgConfig = try PostgresConfiguration.fromEnvironment(env)
        pgConfig.poolSize = poolSize
        let pool = PostgresPool(configuration: pgConfig, logger: logger)
        let run = String(UUID().uuidString.prefix(8)).lowercased()
        var config = AuthorityConfiguration()
        config.schema = "bench_authority_\(run)"
        for (path, name) in [(\AuthorityConfiguration.provisionInput, "provision.in"), (\.provisionOutput, "provision.out"),
                             (\.tokenInput, "token.in"), (\.tokenOutput, "token.out"), (\.adminInput, "admin"),
                             (\.securityTopic, "security")] as [(WritableKeyPath<AuthorityConfiguration, String>, String)] {
            config[keyPath: path] = "bench.\(run).\(name)"
        }
        try await KafkaAdmin(configuration: kafka, logger: logger).createTopics(config.topics + [config.securityTopic],
                                                                                partitions: partitions)
        let secrets = try AuthoritySecrets.parse(AuthoritySecrets.generateText(), source: "bench")
        let database = StageDatabase(pool: pool, schema: config.schema)
        try await database.migrate(AuthorityMigrations.all(schema: config.schema), logger: logger)
        try await TableGenerator(pool: pool, schema: config.schema, secrets: secrets).generate(count: tables)
        defer { pool.close() }
        let producer = try KafkaProducer(configuration: kafka, logger: logger)
        let bench = AuthorityBench(kafka: kafka, producer: producer, pool: pool, database: database,
                                   configuration: config, secrets: secrets, logger: logger)
        print("hallmark bench authority: \(count) tokens from \(cameras) cameras, \(tables) tables, "
              + "\(partitions) partitions, stage in flight \(inFlight), \(poolSize) PostgreSQL connections, "
              + "keyed by \(keyByCamera ? "camera" : "request")")
        let result = try await bench.run(count: count, cameras: cameras, inFlight: inFlight, keyByCamera: keyByCamera)
        print(String(format: "through broker + PostgreSQL: %9.0f validations/s (%d/%d PASS)",
                     result.rate, result.passed, count))
        print(String(format: "  end-to-end latency under that load: p50 %.2f ms, p99 %.2f ms", result.p50, result.p99))
        if let h = registry.snapshot().histograms.first(where: { $0.name == "hallmark_authority_validation_ns" }) {
            print(String(format: "  validation step (parse, open, replay batch, device): p50 %.3f ms, p99 %.3f ms", h.p50 / 1e6, h.p99 / 1e6))
        }
        let local = try AuthorityBench.inProcessRate(samples: result.samples, masters: result.masters)
        print(String(format: "in-process derive + open alone: %9.0f tokens/s (one core)", local))
        print(String(format: "ratio: pipeline / in-process %.3f", result.rate / local))
        _ = try? await pool.execute("DROP SCHEMA IF EXISTS \(unescaped: config.schema) CASCADE")
        _ = await producer.close()
    }
}
