import Foundation
import HallmarkCore
import HallmarkRuntime
import HallmarkSmileID
import Logging
import ServiceLifecycle

/// Builds the gateway's services from a ``ServiceContext``: the PBKDF2 pool, the SIGHUP
/// secret reloader and the ENC-1 stage.
public enum GatewayService {
    /// Topics and schema for ``ServiceRunner``.
    public static func definition(_ c: GatewayConfiguration) -> ServiceRunner.Definition {
        ServiceRunner.Definition(service: "gateway",
                                 topics: [c.encryptInput, c.encryptOutput, c.decryptInput, c.decryptOutput])
    }

    public static func services(_ c: GatewayConfiguration, context: ServiceContext) throws -> [any Service] {
        let cache = DerivedKeyCache(capacity: c.keyCacheSize, ttl: c.keyCacheTTL)
        let store: SecretStore
        do {
            store = try SecretStore(directory: c.secretsDirectory, environment: context.environment,
                                    variablePrefix: "HALLMARK_GATEWAY_", onReload: { _ in cache.removeAll() })
        } catch let error as SmileIDError {
            throw ConfigurationError(variable: c.secretsDirectory == nil ? "HALLMARK_GATEWAY_SECRET_*"
                                                                         : "HALLMARK_GATEWAY_SECRETS_DIR",
                                     reason: error.reason)
        }
        context.logger.info("secrets loaded", metadata: [
            "versions": "\(store.secrets.versions.map(\.version))", "signing_version": "\(store.secrets.signing.version)",
            "encryption": "\(c.policy.encryption)", "excluded_paths": "\(c.policy.excludedPaths.count)",
        ])
        let pool = PBKDF2WorkerPool(workers: c.workers, batchSize: c.batchSize, service: "gateway", logger: context.logger)
        let processor = EnvelopeProcessor(configuration: c, secrets: store, deriver: KeyDeriver(pool: pool, cache: cache))
        // The stage last, so the group stops it first: it drains while the pool still runs.
        return [pool, SecretReloadService(store: store, logger: context.logger),
                try context.stage(processor, inputs: processor.inputs)]
    }
}
