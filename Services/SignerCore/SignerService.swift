import Foundation
import HallmarkPostgres
import HallmarkRuntime
import Logging
import ServiceLifecycle

/// Builds the signer's services from a ``ServiceContext``: the PBKDF2 pool, the SIGHUP
/// secret reloader, the replay sweeper and the stage itself.
public enum SignerService {
    /// Topics, schema and migrations for ``ServiceRunner``.
    public static func definition(_ c: SignerConfiguration) -> ServiceRunner.Definition {
        ServiceRunner.Definition(service: "signer",
                                 topics: [c.signInput, c.signOutput, c.verifyInput, c.verifyOutput],
                                 schema: c.schema, migrations: SignerMigrations.all(schema: c.schema))
    }

    public static func services(_ c: SignerConfiguration, context: ServiceContext) throws -> [any Service] {
        let cache = DerivedKeyCache(capacity: c.keyCacheSize, ttl: c.keyCacheTTL)
        let store: SecretStore
        do {
            store = try SecretStore(directory: c.secretsDirectory, environment: context.environment,
                                    onReload: { _ in cache.removeAll() })
        } catch let error as SignerError {
            // The runtime prints configuration errors in full; this one names no secret.
            throw ConfigurationError(variable: c.secretsDirectory == nil ? "HALLMARK_SIGNER_SECRET_*"
                                                                         : "HALLMARK_SIGNER_SECRETS_DIR",
                                     reason: error.reason)
        }
        context.logger.info("secrets loaded", metadata: [
            "versions": "\(store.secrets.versions.map(\.version))", "signing_version": "\(store.secrets.signing.version)",
        ])
        // Replay claims commit on their own while the message's transaction holds a connection
        // of the stage's pool: a separate pool, so claims never wait for the stage's connections
        // (sharing one would deadlock once every connection is held by a waiting message).
        let replayPool = context.database.map { database in
            var config = database.pool.configuration
            config.poolSize = c.replayPoolSize
            return PostgresPool(configuration: config, logger: context.logger)
        }
        let pool = PBKDF2WorkerPool(workers: c.workers, batchSize: c.batchSize, logger: context.logger)
        let processor = SignerProcessor(configuration: c, secrets: store,
                                        deriver: KeyDeriver(pool: pool, cache: cache), instance: context.instance,
                                        database: replayPool)
        var services: [any Service] = [pool, SecretReloadService(store: store, logger: context.logger)]
        if let replayPool {
            services.append(ReplaySweeper(store: ReplayStore(schema: c.schema), pool: replayPool,
                                          interval: c.sweepInterval, logger: context.logger))
        }
        // Last, so the group stops it first: the stage drains while the pool still runs.
        services.append(try context.stage(processor, inputTopics: [c.signInput, c.verifyInput]))
        return services
    }
}
