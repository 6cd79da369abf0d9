import ArgumentParser
import AuthorityCore
import Foundation
import HallmarkCrypto
import HallmarkCore
import HallmarkMessages
import HallmarkKafka
import HallmarkPostgres
import HallmarkRuntime
import Logging
import Metrics

/// `hallmark bench authority`: token validations through the real broker and PostgreSQL
/// (the authority stage in this process, with its own schema and topics), beside the
/// in-process rate of derive + open alone, in one run.
package struct BenchAuthorityCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "authority", abstract: "Authority validations/s and latency vs in-process derive + open.")

    @Option(help: "Tokens in the backlog the token stage drains (the capacity measurement).") var count = 100_000
    @Option(help: "Tokens sent afterwards at a steady rate, for latency.") var paced = 10_000
    @Option(help: "The steady rate of the latency phase, tokens/s.") var rate = 5_000.0
    @Option(help: "Provisioned cameras the tokens come from.") var cameras = 50
    @Option(help: "Key tables to generate.") var tables = 100
    @Option(help: "Token stage: most messages per batch (default: HALLMARK_MAX_BATCH's).")
    var maxBatch = StageConfiguration.Variable.maxBatch.defaultValue
    @Option(help: "Token stage: batches at work at once (default: HALLMARK_BATCH_WORKERS's).")
    var batchWorkers = StageConfiguration.Variable.batchWorkers.defaultValue
    @Option(help: "Partitions of the bench topics (default: HALLMARK_KAFKA_PARTITIONS).")
    var partitions = BenchCommand.defaultPartitions
    @Option(help: "PostgreSQL connections of the stages (default: the authority's pool size, as the service has it).")
    var poolSize: Int?
    @Flag(help: "Key token requests by camera serial (per-camera order) instead of by request.") var keyByCamera = false
    @Option(
        help:
            "Token requests per batch carrier (hallmark.token.request.batch.v1), as the aggregator sends an intake batch's; 1 sends one request per message."
    ) var carrier = 256

    package init() {}

    package func run() async throws {
        let registry = MetricsRegistry()
        MetricsSystem.bootstrap(registry)
        var logger = Logger(label: "hallmark.bench")
        logger.logLevel = .warning
        let env = ProcessInfo.processInfo.environment
        let kafka = try KafkaConfiguration.fromEnvironment(env)
        var pgConfig = try PostgresConfiguration.fromEnvironment(
            env, poolSize: AuthorityConfiguration.postgresPoolSize)
        if let poolSize { pgConfig.poolSize = poolSize }
        let pool = PostgresPool(configuration: pgConfig, logger: logger)
        let run = String(UUID().uuidString.prefix(8)).lowercased()
        var config = AuthorityConfiguration()
        config.schema = "bench_authority_\(run)"
        for (path, name) in [
            (\AuthorityConfiguration.provisionInput, "provision.in"), (\.provisionOutput, "provision.out"),
            (\.tokenInput, "token.in"), (\.tokenOutput, "token.out"), (\.adminInput, "admin"),
            (\.securityTopic, "security"), (\.auditTopic, "audit"),
        ] as [(WritableKeyPath<AuthorityConfiguration, String>, String)] {
            config[keyPath: path] = "bench.\(run).\(name)"
        }
        try await KafkaAdmin(configuration: kafka, logger: logger).createTopics(
            config.topics + [config.securityTopic],
            partitions: partitions)
        let secrets = try AuthoritySecrets.parse(AuthoritySecrets.generateText(), source: "bench")
        let database = StageDatabase(pool: pool, schema: config.schema)
        try await database.migrate(AuthorityMigrations.all(schema: config.schema), logger: logger)
        try await TableGenerator(pool: pool, schema: config.schema, secrets: secrets).generate(count: tables)
        defer { pool.close() }
        // Stamped as the service's is, so the bench pays for the CloudEvents headers too.
        let producer = try KafkaProducer(
            configuration: kafka, logger: logger, stamp: CloudEvents.stamp(service: "authority"))
        let bench = AuthorityBench(
            kafka: kafka, producer: producer, pool: pool, database: database,
            configuration: config, secrets: secrets, logger: logger,
            processed: { Self.processed(registry) })
        print(
            "hallmark bench authority: \(count) tokens from \(cameras) cameras, \(tables) tables, "
                + "\(partitions) partitions, token batches up to \(maxBatch) on \(batchWorkers) workers, \(pgConfig.poolSize) PostgreSQL connections, "
                + "keyed by \(keyByCamera ? "camera" : "request"), \(carrier > 1 ? "\(carrier) requests per carrier" : "one request per message")"
        )
        let result = try await bench.run(
            count: count, paced: paced, rate: rate, cameras: cameras,
            batch: (maxBatch, batchWorkers),
            keyByCamera: keyByCamera, carrier: carrier)
        print(
            String(
                format: "through broker + PostgreSQL: %9.0f validations/s (backlog of %d drained; %d/%d PASS)",
                result.rate, count, result.passed, count + paced))
        print(String(format: "  CPU of this process (stage + bench client) while draining: %.2f cores", result.cores))
        print(
            String(
                format: "  end-to-end latency at %.0f tokens/s offered: p50 %.2f ms, p99 %.2f ms",
                result.offeredRate, result.p50, result.p99))
        let histograms = registry.snapshot().histograms
        if let h = histograms.first(where: { $0.name == "hallmark_authority_validation_ns" }) {
            print(
                String(
                    format: "  validating a batch (parse, open, replay records, devices): p50 %.3f ms, p99 %.3f ms",
                    h.p50 / 1e6, h.p99 / 1e6))
        }
        // The token stage's: the busiest batch stage (the first by name saw no traffic and
        // printed `batches: 0` on every run).
        if let h = histograms.filter({ $0.name == "hallmark_stage_batch_size" }).max(by: { $0.count < $1.count }) {
            print(
                String(
                    format: "  batches of %@: %d, messages per batch p50 %.0f, p99 %.0f", h.dimensions["group"] ?? "?",
                    h.count, h.p50, h.p99))
        }
        let local = try AuthorityBench.inProcessRate(samples: result.samples, masters: result.masters)
        print(String(format: "in-process derive + open alone: %9.0f tokens/s (per second of one thread's CPU)", local))
        print(String(format: "ratio: pipeline / in-process %.3f", result.rate / local))
        if result.passed != count + paced { throw BenchError("\(count + paced - result.passed) tokens did not PASS") }
        await pool.dropBenchSchemas(config.schema)
        _ = await producer.close()
    }

    /// Verdicts acknowledged by the bench's stages (the runtime's processed counter).
    /// Tokens judged: a carrier's items each count.
    static func processed(_ registry: MetricsRegistry) -> Int {
        Int(registry.total(of: "hallmark_authority_validations_total"))
    }
}
