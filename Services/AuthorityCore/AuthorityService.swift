import Foundation
import HallmarkCore
import HallmarkPostgres
import HallmarkRuntime
import Logging
import ServiceLifecycle

/// Builds the authority's services: loads the secrets and the key tables (strictly: a KEK
/// file that does not open them stops start-up), then returns maintenance, the validation
/// counter, the transactional stage (provisioning, admin) and the token
/// stage.
package enum AuthorityService {
    /// The runner definition for `configuration`.
    package static func definition(_ configuration: AuthorityConfiguration) -> ServiceRunner.Definition {
        ServiceRunner.Definition(
            service: "authority", topics: configuration.topics, schema: configuration.schema,
            migrations: AuthorityMigrations.all(schema: configuration.schema),
            postgresPoolSize: AuthorityConfiguration.postgresPoolSize)
    }

    /// The services to run in a ``ServiceRunner`` process.
    package static func services(
        _ context: ServiceContext,
        configuration: AuthorityConfiguration
    ) async throws -> [any Service] {
        guard let database = context.database else { throw AuthorityError(.configuration, "no database") }
        let secrets: AuthoritySecrets
        do { secrets = try AuthoritySecrets.fromEnvironment(context.environment) } catch {
            throw ConfigurationError(variable: "HALLMARK_AUTHORITY_KEK", reason: error.reason)
        }
        guard !configuration.operatorKeys.isEmpty else {
            throw ConfigurationError(
                variable: "HALLMARK_AUTHORITY_OPERATOR_KEYS_FILE",
                reason: "no operator key: admin commands must be signed by one "
                    + "(or set HALLMARK_AUTHORITY_OPERATOR_KEYS; see hallmark authority operator-key)")
        }
        let stage = try context.stageConfiguration(inputs: [])
        do {
            return try await services(
                configuration: configuration, secrets: secrets, database: database,
                transport: context.transport, stage: stage,
                environment: context.environment, logger: context.logger)
        } catch let error as AuthorityError {
            throw ConfigurationError(variable: "HALLMARK_AUTHORITY_KEK", reason: error.reason)
        }
    }

    /// The services, from parts (also used in-process by `hallmark bench authority` and the
    /// one-process walk test). `stage` gives the group and limits; the token stage uses its
    /// group id + `-tokens`; `environment` may set each stage's own flow settings
    /// (``StageConfiguration/overriding(for:in:)``); `transport` is where they read and write.
    package static func services(
        configuration: AuthorityConfiguration, secrets: AuthoritySecrets,
        database: StageDatabase, transport: StageTransport,
        stage: StageConfiguration, environment: [String: String] = [:], logger: Logger
    ) async throws -> [any Service] {
        let pool = database.pool
        let tables = KeyTableStore(pool: pool, schema: configuration.schema, secrets: secrets)
        try await tables.load(strict: true)
        logger.info("key tables loaded", metadata: ["tables": "\(tables.count)"])
        let metrics = AuthorityMetrics()
        let maintenance = AuthorityMaintenance(
            pool: pool, configuration: configuration, secrets: secrets,
            metrics: metrics, logger: logger)
        let devices = DeviceDirectory(
            schema: configuration.schema, capacity: configuration.deviceCacheSize,
            ttl: .milliseconds(configuration.deviceCacheTTLMilliseconds))
        let counter = ValidationCounter(
            pool: pool, schema: configuration.schema,
            interval: .milliseconds(configuration.countFlushMilliseconds), logger: logger)
        let ledger = ReplayLedger(
            pool: pool, schema: configuration.schema,
            windowSeconds: configuration.replayWindowSeconds)
        let processor = AuthorityProcessor(
            configuration: configuration, secrets: secrets, tables: tables,
            devices: devices, metrics: metrics, maintenance: maintenance,
            instance: stage.instance)
        let tokens = TokenProcessor(
            configuration: configuration, secrets: secrets, tables: tables, devices: devices,
            ledger: ledger, counter: counter, pool: pool, metrics: metrics,
            instance: stage.instance, maxMessageBytes: stage.maxMessageBytes)
        var adminConfig = try stage.overriding(for: "admin", in: environment)
        adminConfig.inputs = processor.inputs
        adminConfig.dispatch = .keyLanes
        // Token validation has no unit-of-work transaction (see TokenProcessor): partition
        // batches without the inbox, in a consumer group of its own.
        var tokenConfig = try stage.overriding(for: "tokens", in: environment)
        tokenConfig.inputs = tokens.inputs
        tokenConfig.dispatch = .partitionBatches
        tokenConfig.groupID += "-tokens"
        // Privacy requests: one transaction each with the inbox, in a consumer group of its own.
        var privacyConfig = try stage.overriding(for: "privacy", in: environment)
        privacyConfig.dispatch = .keyLanes
        privacyConfig.groupID += "-privacy"
        // The admin processor's audit trail and event builder: one of each per process.
        let (audit, events, keys) = (processor.audit, processor.events, configuration.operatorKeys)
        let privacy = PrivacyProcessor(
            holder: AuthorityPrivacy(secrets: secrets, audit: audit, devices: devices),
            topics: configuration.privacy, instance: stage.instance, operatorKey: { keys[$0] },
            windowSeconds: configuration.adminWindowSeconds
        ) { message, reason, keyID in
            try events.output(for: message, .privacyRequestRejected, .critical, reason: reason.rawValue, keyID: keyID)
        }
        privacyConfig.inputs = privacy.inputs
        // KEKs added, retired or made current in the KEK file (by a restart) are recorded.
        let recorder = KeyRotationRecorder(
            trail: audit, pool: pool, producer: transport.sink, logger: logger,
            keys: [.keks(secrets.keyring)])
        // Stopped in reverse order: the stages first, then the counter's last flush, and
        // maintenance.
        return [
            recorder, maintenance, counter,
            Stage(
                configuration: privacyConfig, transport: transport, database: database,
                processor: privacy, logger: logger),
            Stage(
                configuration: adminConfig, transport: transport, database: database,
                processor: processor, logger: logger),
            Stage(
                configuration: tokenConfig, transport: transport, database: database,
                processor: tokens, logger: logger),
        ]
    }
}
