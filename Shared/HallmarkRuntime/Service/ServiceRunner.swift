import Foundation
import HallmarkKafka
import HallmarkPostgres
import Logging
import Metrics
import ServiceLifecycle

/// Runs a Hallmark service process from its environment: JSON logs on stdout, the metrics
/// backend and publisher, the Kafka producer, topics, the database and its migrations, and a
/// service group that shuts down gracefully on SIGTERM or SIGINT.
public enum ServiceRunner {
    /// What a service declares about itself.
    public struct Definition: Sendable {
        public var service: String
        /// Topics to create at start-up when missing (inputs and outputs).
        public var topics: [String]
        /// The service's schema and migrations; nil for a service without a database.
        public var schema: String?
        public var migrations: [PostgresMigrations.Migration]

        public init(service: String, topics: [String], schema: String? = nil,
                    migrations: [PostgresMigrations.Migration] = []) {
            self.service = service
            self.topics = topics
            self.schema = schema
            self.migrations = migrations
        }
    }

    /// Sets up and runs until shutdown; exits the process with a non-zero status and one clear
    /// line on stderr when start-up fails.
    public static func run(_ definition: Definition,
                           services makeServices: (ServiceContext) async throws -> [any Service]) async -> Never {
        let env = ProcessInfo.processInfo.environment
        let registry = MetricsRegistry()
        LoggingSystem.bootstrap { label in
            var handler = JSONLogHandler(label: label)
            handler.logLevel = Logger.Level(rawValue: env["HALLMARK_LOG_LEVEL"] ?? "") ?? .info
            return handler
        }
        MetricsSystem.bootstrap(registry)
        var logger = Logger(label: "hallmark.\(definition.service)")
        let instance = env["HALLMARK_INSTANCE"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"
        logger[metadataKey: "service"] = "\(definition.service)"
        logger[metadataKey: "instance"] = "\(instance)"

        var pool: PostgresPool?
        do {
            try KafkaLibrary.requireSupportedVersion()
            let kafka = try KafkaConfiguration.fromEnvironment(env)
            let metricsTopic = env["HALLMARK_METRICS_TOPIC"] ?? "hallmark.metrics"
            let common = [env["HALLMARK_REJECTED_TOPIC"] ?? "hallmark.rejected", metricsTopic,
                          env["HALLMARK_SECURITY_TOPIC"] ?? "hallmark.security"]
            try await KafkaAdmin(configuration: kafka, logger: logger).createTopics(definition.topics + common)
            let producer = try KafkaProducer(configuration: kafka, logger: logger)

            var database: StageDatabase?
            if let schema = definition.schema {
                let config = try PostgresConfiguration.fromEnvironment(env)
                let p = PostgresPool(configuration: config, logger: logger)
                pool = p
                let db = StageDatabase(pool: p, schema: schema)
                try await p.withRetry(attempts: 10) { try await db.migrate(definition.migrations, logger: logger) }
                database = db
            }
            let context = ServiceContext(environment: env, service: definition.service, instance: instance,
                                         logger: logger, kafka: kafka, producer: producer, database: database,
                                         metrics: registry)
            let publisher = MetricsPublisher(
                registry: registry, producer: producer, topic: metricsTopic, service: definition.service,
                instance: instance, interval: .milliseconds(Int64(env["HALLMARK_METRICS_INTERVAL_MS"] ?? "") ?? 10_000),
                logger: logger)
            var support: [any Service] = [publisher]
            if let database {
                let hours = Int64(env["HALLMARK_INBOX_RETENTION_HOURS"] ?? "") ?? 7 * 24
                support.append(InboxSweeper(database: database, retention: .seconds(hours * 3600), logger: logger))
            }
            // The group stops services in reverse order: stages first, the publisher last.
            let services: [any Service] = support + (try await makeServices(context))
            let group = ServiceGroup(configuration: .init(
                services: services.map { .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup,
                                                failureTerminationBehavior: .gracefullyShutdownGroup) },
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
            logger.info("service started", metadata: ["librdkafka": "\(KafkaLibrary.versionString)"])
            try await group.run()
            await publisher.publish()
            await producer.close()
            pool?.close()
            logger.info("service stopped")
            exit(0)
        } catch {
            pool?.close()
            let line = "hallmark-\(definition.service): cannot start: \(ErrorPolicy.safeDescription(error))\n"
            FileHandle.standardError.write(Data(line.utf8))
            logger.critical("cannot start", metadata: ["error": "\(ErrorPolicy.safeDescription(error))"])
            exit(1)
        }
    }
}
