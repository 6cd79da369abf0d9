import AggregatorCore
import AuthorityCore
import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkPostgres
import HallmarkRuntime
import Logging

extension AggregatorBench {
    /// The bench's own topics, schemas, key tables and keys (throw-away, never printed).
    struct World: Sendable {
        let run: String
        let authority: AuthorityConfiguration
        let aggregator: AggregatorConfiguration
        let pool: PostgresPool
        let key: CheckpointSigningKey
        /// The aggregator's id key: the bench ties each token request to its submission with it.
        let idKey: SubmissionIDKey
        let folder: URL

        init(run: String, kafka: KafkaConfiguration, partitions: Int, logger: Logger) async throws {
            self.run = run
            func topic(_ name: String) -> String { "bench.aggregator.\(run).\(name)" }
            var a = AuthorityConfiguration()
            a.schema = "bench_authority_\(run)"
            (a.provisionInput, a.provisionOutput) = (topic("provision.in"), topic("provision.out"))
            (a.tokenInput, a.tokenOutput, a.adminInput) = (topic("token.requests"), topic("token.results"), topic("admin"))
            a.securityTopic = topic("security")
            a.auditTopic = topic("audit")
            var g = AggregatorConfiguration()
            g.schema = "bench_aggregator_\(run)"
            (g.submissionInput, g.submissionOutput) = (topic("submissions"), topic("submission.results"))
            (g.tokenRequests, g.tokenResults, g.checkpoints) = (a.tokenInput, a.tokenOutput, topic("checkpoints"))
            (g.verifyInput, g.verifyOutput) = (topic("verify.in"), topic("verify.out"))
            g.auditTopic = topic("aggregator.audit")
            authority = a
            aggregator = g
            try await KafkaAdmin(configuration: kafka, logger: logger).createTopics(
                a.topics + g.topics + [topic("security"), topic("rejected")], partitions: partitions)
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("hallmark-bench-aggregator-\(run)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(try AuthoritySecrets.generateText().utf8).write(to: folder.appendingPathComponent("authority.secrets"))
            key = try CheckpointSigningKey.generate()
            try key.write(to: folder.appendingPathComponent("checkpoint.key").path)
            idKey = try SubmissionIDKey.generate()
            try Data(idKey.base64.utf8).write(to: folder.appendingPathComponent("id.key"))
            pool = PostgresPool(configuration: try PostgresConfiguration.fromEnvironment(), logger: logger)
            try await StageDatabase(pool: pool, schema: a.schema).migrate(
                AuthorityMigrations.all(schema: a.schema), logger: logger)
            try await TableGenerator(
                pool: pool, schema: a.schema,
                secrets: try AuthoritySecrets.fromEnvironment(
                    ["HALLMARK_AUTHORITY_KEK_FILE": folder.appendingPathComponent("authority.secrets").path])
            ).generate(count: 100)
        }

        var authorityEnvironment: [String: String] {
            authority.placementEnvironment.merging([
                "HALLMARK_AUTHORITY_KEK_FILE": folder.appendingPathComponent("authority.secrets").path,
                // No admin command is sent; the authority still wants a key to check them with.
                "HALLMARK_AUTHORITY_OPERATOR_KEYS": OperatorKeys.entry(keyID: "bench", publicKey: key.publicKey),
                // A bench camera makes thousands of tokens; the abuse thresholds are not under test.
                "HALLMARK_AUTHORITY_WARN_THRESHOLD": "10000000", "HALLMARK_AUTHORITY_BLACKLIST_THRESHOLD": "20000000",
                "HALLMARK_REJECTED_TOPIC": "bench.aggregator.\(run).rejected",
                "HALLMARK_GROUP_ID": "bench-authority-\(run)", "HALLMARK_INSTANCE": "bench-authority",
                "HALLMARK_POSTGRES_POOL_SIZE": "8", "HALLMARK_LOG_LEVEL": "info",
            ]) { _, new in new }
        }

        var aggregatorEnvironment: [String: String] {
            aggregator.placementEnvironment.merging([
                "HALLMARK_AGGREGATOR_SIGNING_KEY_FILE": folder.appendingPathComponent("checkpoint.key").path,
                "HALLMARK_AGGREGATOR_ID_KEY_FILE": folder.appendingPathComponent("id.key").path,
                "HALLMARK_REJECTED_TOPIC": "bench.aggregator.\(run).rejected", "HALLMARK_GROUP_ID": "bench-aggregator-\(run)",
                "HALLMARK_INSTANCE": "bench-aggregator", "HALLMARK_POSTGRES_POOL_SIZE": "8", "HALLMARK_LOG_LEVEL": "info",
            ]) { _, new in new }
        }

        /// The authority process of this world, from `directory`.
        func startAuthority(from directory: URL) throws -> BenchProcess {
            try BenchProcess(binary: directory.appendingPathComponent("hallmark-authority"), environment: authorityEnvironment)
        }

        /// The aggregator process of this world, from `directory`, with `extra` settings.
        func startAggregator(from directory: URL, _ extra: [String: String] = [:]) throws -> BenchProcess {
            try BenchProcess(
                binary: directory.appendingPathComponent("hallmark-aggregator"),
                environment: aggregatorEnvironment.merging(extra) { $1 })
        }

        func removeFiles() { try? FileManager.default.removeItem(at: folder) }

        func dropSchemas() async {
            await pool.dropBenchSchemas(aggregator.schema, authority.schema, "bench_log_\(run)")
            pool.close()
        }
    }
}
