import Foundation
import HallmarkRuntime
import ServiceLifecycle

/// Builds the authority's services from a ``ServiceContext``: loads the secrets and the key
/// tables (strictly: a KEK file that does not open them stops start-up), then returns the
/// stage and the maintenance service.
public enum AuthorityService {
    /// The runner definition for `configuration`.
    public static func definition(_ configuration: AuthorityConfiguration) -> ServiceRunner.Definition {
        ServiceRunner.Definition(service: "authority", topics: configuration.topics, schema: configuration.schema,
                                 migrations: AuthorityMigrations.all(schema: configuration.schema))
    }

    /// The services to run.
    public static func services(_ context: ServiceContext,
                                configuration: AuthorityConfiguration) async throws -> [any Service] {
        guard let database = context.database else { throw AuthorityError(.configuration, "no database") }
        let secrets: AuthoritySecrets
        do { secrets = try AuthoritySecrets.fromEnvironment(context.environment) } catch {
            throw ConfigurationError(variable: "HALLMARK_AUTHORITY_KEK", reason: error.reason)
        }
        let tables = KeyTableStore(pool: database.pool, schema: configuration.schema, secrets: secrets)
        do { try await tables.load(strict: true) } catch let error as AuthorityError {
            throw ConfigurationError(variable: "HALLMARK_AUTHORITY_KEK", reason: error.reason)
        }
        context.logger.info("key tables loaded", metadata: ["tables": "\(tables.count)"])
        let metrics = AuthorityMetrics()
        let maintenance = AuthorityMaintenance(pool: database.pool, configuration: configuration, secrets: secrets,
                                               metrics: metrics, logger: context.logger)
        let devices = DeviceDirectory(schema: configuration.schema, capacity: configuration.deviceCacheSize,
                                      ttl: .milliseconds(configuration.deviceCacheTTLMilliseconds))
        let counter = ValidationCounter(pool: database.pool, schema: configuration.schema,
                                        interval: .milliseconds(configuration.countFlushMilliseconds),
                                        logger: context.logger)
        let processor = AuthorityProcessor(configuration: configuration, secrets: secrets, tables: tables,
                                           devices: devices, metrics: metrics, maintenance: maintenance,
                                           counter: counter, instance: context.instance)
        // Stopped in reverse order: the stage first, then the counter's last flush.
        return [maintenance, counter, try context.stage(processor, inputTopics: configuration.inputTopics)]
    }
}
