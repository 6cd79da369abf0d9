import Foundation
import HallmarkCore
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
        /// The service's own pool size setting, with its default
        /// (``PostgresConfiguration/Variable/poolSize(service:default:)``).
        public var postgresPoolSize: Setting<Int>

        /// - Parameter postgresPoolSize: default: the service's own variable, with the
        ///   runtime's default of 4 connections.
        public init(
            service: String, topics: [String], schema: String? = nil,
            migrations: [PostgresMigrations.Migration] = [], postgresPoolSize: Setting<Int>? = nil
        ) {
            self.service = service
            self.topics = topics
            self.schema = schema
            self.migrations = migrations
            self.postgresPoolSize = postgresPoolSize ?? PostgresConfiguration.Variable.poolSize(service: service)
        }
    }

    /// Sets up and runs until shutdown; exits the process with a non-zero status and one clear
    /// line on stderr when start-up fails.
    public static func run(
        _ definition: Definition,
        services makeServices: (ServiceContext) async throws -> [any Service]
    ) async -> Never {
        let env = ProcessInfo.processInfo.environment
        AllocatorTuning.apply(environment: env)
        let settings = Settings(env)
        let registry = MetricsRegistry()
        LoggingSystem.bootstrap { label in
            var handler = JSONLogHandler(label: label)
            // A bad level stops start-up below, with the variable named.
            handler.logLevel = (try? settings.value(Variable.logLevel)) ?? .info
            return handler
        }
        MetricsSystem.bootstrap(registry)
        var logger = Logger(label: "hallmark.\(definition.service)")
        // Text: any set value parses; it is checked below, once errors can be reported.
        let instance =
            (try? settings.value(StageConfiguration.Variable.instance))
            ?? "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"
        logger[metadataKey: "service"] = "\(definition.service)"
        logger[metadataKey: "instance"] = "\(instance)"

        var pool: PostgresPool?
        do {
            // Metrics, rejected records and events carry it: 1–128 printable ASCII characters.
            guard Redaction.isPrintableASCII(instance, limit: 128) else {
                throw ConfigurationError(
                    variable: StageConfiguration.Variable.instance.name, reason: "must be 1-128 printable ASCII characters")
            }
            let startup = try Startup.read(
                env, service: definition.service, database: definition.schema != nil,
                poolSize: definition.postgresPoolSize)
            try KafkaLibrary.requireSupportedVersion()
            let kafka = try KafkaConfiguration.fromEnvironment(env)
            let common = [
                try settings.value(StageConfiguration.Variable.rejectedTopic), startup.metricsTopic,
                try settings.value(StageConfiguration.Variable.securityTopic),
            ]
            try await KafkaAdmin(configuration: kafka, logger: logger).createTopics(definition.topics + common)
            let producer = try KafkaProducer(
                configuration: kafka, logger: logger, stamp: CloudEvents.stamp(service: definition.service))

            var database: StageDatabase?
            if let schema = definition.schema, let config = startup.postgres {
                let p = PostgresPool(configuration: config, logger: logger)
                pool = p
                let db = StageDatabase(pool: p, schema: schema)
                try await p.withRetry(attempts: 10) { try await db.migrate(definition.migrations, logger: logger) }
                database = db
            }
            let health = HealthMonitor()
            // One consumer for the process's stages of partition batches, in the service's group.
            let shared = SharedConsumer(
                configuration: kafka,
                groupID: try settings.value(StageConfiguration.Variable.groupID) ?? "hallmark-\(definition.service)",
                logger: logger)
            let context = ServiceContext(
                environment: env, service: definition.service, instance: instance,
                logger: logger, kafka: kafka, transport: .kafka(kafka, producer: producer, logger: logger, shared: shared),
                database: database,
                metrics: registry, health: health)
            let publisher = MetricsPublisher(
                registry: registry, producer: producer, topic: startup.metricsTopic, service: definition.service,
                instance: instance, interval: startup.metricsInterval, health: health,
                stallLimit: startup.stallLimit, logger: logger)
            var support: [any Service] = [publisher]
            if let settings = startup.healthFile {
                support.append(
                    HealthFile(
                        settings: settings, monitor: health, service: definition.service,
                        instance: instance, logger: logger))
            }
            if let database {
                support.append(
                    InboxSweeper(
                        database: database, retention: startup.inboxRetention, answerRetention: startup.answerRetention,
                        logger: logger))
                support.append(TableStatistics(database: database, interval: startup.analyzeInterval, logger: logger))
            }
            // The group stops services in reverse order: stages first, the publisher last.
            let services: [any Service] = support + (try await makeServices(context))
            // The stages of partition batches share the consumer, in the service's group,
            // unless a stage of key lanes reads in that group on its own.
            let readers = services.compactMap { $0 as? any SharedConsumerMember }
            if !readers.contains(where: { $0.consumerMember == nil && $0.consumerGroup == shared.groupID }) {
                try shared.declare(readers.compactMap(\.consumerMember))
                try await shared.carryOverOffsets()
            }
            let group = ServiceGroup(
                configuration: .init(
                    services: services.map {
                        .init(
                            service: $0, successTerminationBehavior: .gracefullyShutdownGroup,
                            failureTerminationBehavior: .gracefullyShutdownGroup)
                    },
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
