import Foundation
import HallmarkCore
import Logging
import ServiceLifecycle

/// A SmileID service's key material, made once from its ``SmileIDKeySettings``: the secret
/// store (reloaded on SIGHUP, which also empties the derived-key cache), the PBKDF2 worker
/// pool, and the deriver over both.
public struct SmileIDKeys: Sendable {
    public let secrets: SecretStore
    public let pool: PBKDF2WorkerPool
    public let deriver: KeyDeriver
    /// The pool and the SIGHUP reloader: services to run before the stages, so they stop after them.
    public let services: [any Service]

    /// Loads the secrets (a start-up error names the variable, never a secret) and logs
    /// which versions are in force.
    /// - Parameter onReload: called with the new set after each successful reload (SIGHUP).
    public init(
        _ settings: SmileIDKeySettings, environment: [String: String], service: String, logger: Logger,
        onReload: @escaping @Sendable (SecretSet) -> Void = { _ in }
    ) throws {
        let cache = DerivedKeyCache(capacity: settings.keyCacheSize, ttl: settings.keyCacheTTL)
        do {
            secrets = try SecretStore(
                directory: settings.secretsDirectory, environment: environment,
                variablePrefix: settings.prefix,
                onReload: {
                    cache.removeAll(); onReload($0)
                })
        } catch let error as SmileIDError {
            // The runtime prints configuration errors in full; this one names no secret.
            throw ConfigurationError(
                variable: settings.prefix + (settings.secretsDirectory == nil ? "SECRET_*" : "SECRETS_DIR"),
                reason: error.reason)
        }
        logger.info(
            "secrets loaded",
            metadata: [
                "versions": "\(secrets.secrets.versions.map(\.version))", "signing_version": "\(secrets.secrets.signing.version)",
            ])
        pool = PBKDF2WorkerPool(workers: settings.workers, batchSize: settings.batchSize, service: service, logger: logger)
        deriver = KeyDeriver(pool: pool, cache: cache)
        services = [pool, SecretReloadService(store: secrets, logger: logger)]
    }
}
