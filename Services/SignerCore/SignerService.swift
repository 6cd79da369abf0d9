import Foundation
import HallmarkCore
import HallmarkPostgres
import HallmarkRuntime
import HallmarkSmileID
import Logging
import ServiceLifecycle

/// Builds the signer's services from a ``ServiceContext``: the PBKDF2 pool, the SIGHUP
/// secret reloader, the replay sweeper and the stage itself.
public enum SignerService {
    /// Topics, schema and migrations for ``ServiceRunner``.
    public static func definition(_ c: SignerConfiguration) -> ServiceRunner.Definition {
        ServiceRunner.Definition(service: "signer",
                                 topics: [c.signInput, c.signOutput, c.verifyInput, c.verifyOutput, c.securityTopic],
                                 schema: c.schema, migrations: SignerMigrations.all(schema: c.schema))
    }

    public static func services(_ c: SignerConfiguration, context: ServiceContext) throws -> [any Service] {
        let cache = DerivedKeyCache(capacity: c.keyCacheSize, ttl: c.keyCacheTTL)
        let store: SecretStore
        do {
            store = try SecretStore(directory: c.secretsDirectory, environment: context.environment,
                                    variablePrefix: "HALLMARK_SIGNER_", onReload: { _ in cache.removeAll() })
        } catch let error as SmileIDError {
            // The runtime prints configuration errors in full; this one names no secret.
            throw ConfigurationError(variable: c.secretsDirectory == nil ? "HALLMARK_SIGNER_SECRET_*"
                                                                         : "HALLMARK_SIGNER_SECRETS_DIR",
                                     reason: error.reason)
        }
        context.logger.info("secrets loaded", metadata: [
            "versions": "\(store.secrets.versions.map(\.version))", "signing_version": "\(store.secrets.signing.version)",
        ])
        let pool = PBKDF2WorkerPool(workers: c.workers, batchSize: c.batchSize, service: "signer", logger: context.logger)
        let zips = c.zipReader(service: "signer", logger: context.logger)
        let processor = SignerProcessor(configuration: c, secrets: store, deriver: KeyDeriver(pool: pool, cache: cache),
                                        instance: context.instance, zips: zips)
        // Before the stage, so the group stops it after the stage drained: its last report
        // includes the windows the final messages counted into.
        var services: [any Service] = [pool, zips.pool, SecretReloadService(store: store, logger: context.logger),
                                       SecurityEventReporter(processor: processor, producer: context.producer,
                                                             logger: context.logger)]
        if let database = context.database {
            services.append(ReplaySweeper.make(store: ReplayStore(schema: c.schema), pool: database.pool,
                                          interval: c.sweepInterval, logger: context.logger))
        }
        // Last, so the group stops it first: the stage drains while the pool still runs.
        services.append(try context.stage(processor, inputs: processor.inputs,
                                          unitOfWork: context.database == nil ? .none : .perMessage))
        return services
    }
}
