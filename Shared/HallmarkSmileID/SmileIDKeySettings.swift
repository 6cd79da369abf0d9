import Foundation
import HallmarkCore
import HallmarkCrypto

/// Where a SmileID service's partner secrets come from and how its PBKDF2 work is done: the
/// settings the signer and the gateway share, each read from `<prefix>…` variables
/// (``Variables``; the secrets themselves: ``SecretSet``).
public struct SmileIDKeySettings: Sendable {
    /// The service's variable prefix, e.g. `HALLMARK_SIGNER_`.
    public var prefix: String
    public var secretsDirectory: String?
    public var workers = CoreBudget.cores
    public var batchSize = PBKDF2.preferredBatch
    public var keyCacheSize = 4096
    public var keyCacheTTL: TimeInterval = 600

    public init(prefix: String) {
        self.prefix = prefix
    }

    /// A service's key variables, each declared once (`<prefix>SECRET_<VERSION>` and
    /// `<prefix>SIGNING_VERSION` are read by ``SecretSet`` when there is no folder).
    public struct Variables: Sendable {
        public let secretsDirectory: Setting<String?>
        public let signingVersion: Setting<String?>
        /// `<prefix>SECRET_<VERSION>`: one variable per secret version.
        public let secretFamily: SettingDescription
        public let workers, batchSize, keyCacheSize, keyCacheTTL: Setting<Int>

        public init(prefix: String) {
            secretsDirectory = Setting.optionalText(
                prefix + "SECRETS_DIR", doc: "folder of secret files, one per version (else <prefix>SECRET_<VERSION>)")
            signingVersion = Setting.optionalText(
                prefix + "SIGNING_VERSION", doc: "without a folder: the secret version new signatures use")
            secretFamily = SettingDescription(
                name: prefix + "SECRET_<VERSION>", accepted: "text",
                doc: "without a folder: the partner secret of one version (e.g. \(prefix)SECRET_V1)", isSecret: true)
            workers = .integer(
                prefix + "WORKERS", default: CoreBudget.cores, in: 1...1024,
                doc: "PBKDF2 worker threads (default: the cores the process may use: affinity and CPU quota)")
            batchSize = .integer(
                prefix + "BATCH", default: PBKDF2.preferredBatch, in: 1...64,
                doc: "derivations one worker takes at once (2 with SHA-NI, else 1)")
            keyCacheSize = .integer(
                prefix + "KEY_CACHE_SIZE", default: 4096, in: 0...10_000_000, doc: "derived keys kept (0 disables the cache)")
            keyCacheTTL = .integer(
                prefix + "KEY_CACHE_TTL_SECONDS", default: 600, in: 1...86_400, doc: "seconds a derived key is kept")
        }

        /// Every variable, in the order `hallmark config` lists them.
        public var all: [SettingDescription] {
            [
                secretsDirectory.description, signingVersion.description, secretFamily, workers.description,
                batchSize.description, keyCacheSize.description, keyCacheTTL.description,
            ]
        }
    }

    /// Reads the variables over the defaults; a malformed value throws, naming the variable.
    public static func fromEnvironment(
        _ env: [String: String], prefix: String
    ) throws(ConfigurationError)
        -> SmileIDKeySettings
    {
        let settings = Settings(env), v = Variables(prefix: prefix)
        var k = SmileIDKeySettings(prefix: prefix)
        k.secretsDirectory = try settings.value(v.secretsDirectory)
        k.workers = try settings.value(v.workers)
        k.batchSize = try settings.value(v.batchSize)
        k.keyCacheSize = try settings.value(v.keyCacheSize)
        k.keyCacheTTL = TimeInterval(try settings.value(v.keyCacheTTL))
        return k
    }
}
