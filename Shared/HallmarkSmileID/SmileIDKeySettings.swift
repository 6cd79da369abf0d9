import Foundation
import HallmarkCore
import HallmarkCrypto

/// Where a SmileID service's partner secrets come from and how its PBKDF2 work is done: the
/// settings the signer and the gateway share, each read from `<prefix>…` variables.
///
/// | variable | default | meaning |
/// |---|---|---|
/// | `<prefix>SECRETS_DIR` | — | folder of secret files, one per version (see ``SecretSet``) |
/// | `<prefix>SECRET_<VERSION>`, `<prefix>SIGNING_VERSION` | — | versions from the environment (when no folder) |
/// | `<prefix>WORKERS` | active cores | PBKDF2 worker threads |
/// | `<prefix>BATCH` | 2 with SHA-NI, else 1 | derivations one worker takes at once (only the SHA-NI kernel interleaves pairs) |
/// | `<prefix>KEY_CACHE_SIZE` | 4096 | derived keys kept (0 disables the cache) |
/// | `<prefix>KEY_CACHE_TTL_SECONDS` | 600 | how long a derived key is kept |
public struct SmileIDKeySettings: Sendable {
    /// The service's variable prefix, e.g. `HALLMARK_SIGNER_`.
    public var prefix: String
    public var secretsDirectory: String?
    public var workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
    public var batchSize = PBKDF2.preferredBatch
    public var keyCacheSize = 4096
    public var keyCacheTTL: TimeInterval = 600

    public init(prefix: String) {
        self.prefix = prefix
    }

    /// Reads the variables over the defaults; a malformed value throws, naming the variable.
    public static func fromEnvironment(
        _ env: [String: String], prefix: String
    ) throws(ConfigurationError)
        -> SmileIDKeySettings
    {
        let settings = Settings(env)
        var k = SmileIDKeySettings(prefix: prefix)
        k.secretsDirectory = settings.string(prefix + "SECRETS_DIR")
        k.workers = try settings.integer(prefix + "WORKERS", default: k.workers, in: 1...1024)
        k.batchSize = try settings.integer(prefix + "BATCH", default: k.batchSize, in: 1...64)
        k.keyCacheSize = try settings.integer(prefix + "KEY_CACHE_SIZE", default: k.keyCacheSize, in: 0...10_000_000)
        k.keyCacheTTL = TimeInterval(try settings.integer(prefix + "KEY_CACHE_TTL_SECONDS", default: 600, in: 1...86_400))
        return k
    }
}
