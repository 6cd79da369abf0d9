import Foundation

/// The signer's settings, each from a `HALLMARK_SIGNER_…` variable with a default.
///
/// | variable | default | meaning |
/// |---|---|---|
/// | `HALLMARK_SIGNER_SIGN_INPUT` | `smileid.sign.requests` | sign requests consumed |
/// | `HALLMARK_SIGNER_SIGN_OUTPUT` | `smileid.sign.results` | sign results produced |
/// | `HALLMARK_SIGNER_VERIFY_INPUT` | `smileid.verify.requests` | verify requests consumed |
/// | `HALLMARK_SIGNER_VERIFY_OUTPUT` | `smileid.verify.results` | verify results produced |
/// | `HALLMARK_SECURITY_TOPIC` | `hallmark.security` | security events |
/// | `HALLMARK_SIGNER_SCHEMA` | `signer` | PostgreSQL schema (inbox, replay table) |
/// | `HALLMARK_SIGNER_SECRETS_DIR` | — | folder of secret files, one per version (see ``SecretSet``) |
/// | `HALLMARK_SIGNER_SECRET_<VERSION>` | — | a secret version from the environment (when no folder) |
/// | `HALLMARK_SIGNER_SIGNING_VERSION` | — | the signing version for environment secrets |
/// | `HALLMARK_SIGNER_WINDOW_SECONDS` | 300 | timestamp window (±) and replay memory |
/// | `HALLMARK_SIGNER_WORKERS` | active cores | PBKDF2 worker threads |
/// | `HALLMARK_SIGNER_BATCH` | 2 | derivations one worker takes at once (the fast backend interleaves pairs) |
/// | `HALLMARK_SIGNER_KEY_CACHE_SIZE` | 4096 | derived keys kept (0 disables the cache) |
/// | `HALLMARK_SIGNER_KEY_CACHE_TTL_SECONDS` | 600 | how long a derived key is kept |
/// | `HALLMARK_SIGNER_SWEEP_SECONDS` | 30 | expired replay entries removed this often |
/// | `HALLMARK_SIGNER_REPLAY_POOL_SIZE` | 4 | connections for replay claims (a pool of their own) |
/// | `HALLMARK_SIGNER_ALERT_REJECTIONS` | 20 | rejections per partner per alert window that raise a security event |
/// | `HALLMARK_SIGNER_ALERT_WINDOW_SECONDS` | 60 | the alert window |
/// | `HALLMARK_SIGNER_MAX_ZIP_BYTES` | 64 MiB | largest uncompressed zip content read |
///
/// Each message in flight holds a database connection while its keys are derived, so
/// `hallmark-signer` defaults `HALLMARK_POSTGRES_POOL_SIZE` to 16 (instead of the runtime's 4)
/// to keep every worker fed.
public struct SignerConfiguration: Sendable {
    public var signInput = "smileid.sign.requests"
    public var signOutput = "smileid.sign.results"
    public var verifyInput = "smileid.verify.requests"
    public var verifyOutput = "smileid.verify.results"
    public var securityTopic = "hallmark.security"
    public var schema = "signer"
    public var secretsDirectory: String?
    public var timestampWindow: TimeInterval = 300
    public var workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
    public var batchSize = 2
    public var keyCacheSize = 4096
    public var keyCacheTTL: TimeInterval = 600
    public var sweepInterval: Duration = .seconds(30)
    public var replayPoolSize = 4
    public var alertRejections = 20
    public var alertWindow: TimeInterval = 60
    public var maxZipBytes = 64 << 20

    public init() {}

    /// Reads the variables over the defaults; a malformed value throws, naming the variable.
    public static func fromEnvironment(_ env: [String: String]) throws -> SignerConfiguration {
        var c = SignerConfiguration()
        func text(_ name: String) -> String? { env[name].flatMap { $0.isEmpty ? nil : $0 } }
        func number(_ name: String, min: Int) throws -> Int? {
            guard let raw = text(name) else { return nil }
            guard let value = Int(raw), value >= min else {
                throw SignerError(.configuration, "\(name) must be an integer of at least \(min)")
            }
            return value
        }
        if let v = text("HALLMARK_SIGNER_SIGN_INPUT") { c.signInput = v }
        if let v = text("HALLMARK_SIGNER_SIGN_OUTPUT") { c.signOutput = v }
        if let v = text("HALLMARK_SIGNER_VERIFY_INPUT") { c.verifyInput = v }
        if let v = text("HALLMARK_SIGNER_VERIFY_OUTPUT") { c.verifyOutput = v }
        if let v = text("HALLMARK_SECURITY_TOPIC") { c.securityTopic = v }
        if let v = text("HALLMARK_SIGNER_SCHEMA") {
            guard v.range(of: "^[a-z_][a-z0-9_]*$", options: .regularExpression) != nil else {
                throw SignerError(.configuration, "HALLMARK_SIGNER_SCHEMA must match [a-z_][a-z0-9_]*")
            }
            c.schema = v
        }
        c.secretsDirectory = text("HALLMARK_SIGNER_SECRETS_DIR")
        if let v = try number("HALLMARK_SIGNER_WINDOW_SECONDS", min: 1) { c.timestampWindow = TimeInterval(v) }
        if let v = try number("HALLMARK_SIGNER_WORKERS", min: 1) { c.workers = v }
        if let v = try number("HALLMARK_SIGNER_BATCH", min: 1) { c.batchSize = v }
        if let v = try number("HALLMARK_SIGNER_KEY_CACHE_SIZE", min: 0) { c.keyCacheSize = v }
        if let v = try number("HALLMARK_SIGNER_KEY_CACHE_TTL_SECONDS", min: 1) { c.keyCacheTTL = TimeInterval(v) }
        if let v = try number("HALLMARK_SIGNER_SWEEP_SECONDS", min: 1) { c.sweepInterval = .seconds(v) }
        if let v = try number("HALLMARK_SIGNER_REPLAY_POOL_SIZE", min: 1) { c.replayPoolSize = v }
        if let v = try number("HALLMARK_SIGNER_ALERT_REJECTIONS", min: 1) { c.alertRejections = v }
        if let v = try number("HALLMARK_SIGNER_ALERT_WINDOW_SECONDS", min: 1) { c.alertWindow = TimeInterval(v) }
        if let v = try number("HALLMARK_SIGNER_MAX_ZIP_BYTES", min: 1) { c.maxZipBytes = v }
        return c
    }
}
