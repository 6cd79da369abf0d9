import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkRuntime
import HallmarkSmileID
import HallmarkZip
import Logging

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
/// | `HALLMARK_SIGNER_SECRETS_DIR`, `…_SECRET_<VERSION>`, `…_SIGNING_VERSION`, `…_WORKERS`, `…_BATCH`, `…_KEY_CACHE_SIZE`, `…_KEY_CACHE_TTL_SECONDS` | see ``SmileIDKeySettings`` | secrets and PBKDF2 |
/// | `HALLMARK_SIGNER_WINDOW_SECONDS` | 300 | timestamp window (±) and replay memory |
/// | `HALLMARK_SIGNER_SWEEP_SECONDS` | 30 | expired replay entries removed this often |
/// | `HALLMARK_SIGNER_ALERT_REJECTIONS`, `…_ALERT_WINDOW_SECONDS`, `…_EVENTS_PER_PARTNER`, `…_EVENTS_PER_WINDOW` | 20, 60, 10, 200 | security event limits (``SecurityEventSettings``): `bad_mac`/`replayed_request` events per partner |
/// | `HALLMARK_SIGNER_MAX_ZIP_BYTES` | 64 MiB | bytes one zip upload may inflate to, all entries together (counted as inflated) |
/// | `HALLMARK_SIGNER_MAX_ZIP_ENTRIES` | 256 | entries one zip upload may have |
/// | `HALLMARK_SIGNER_ZIP_MEMORY_BYTES` | 256 MiB | memory all zip uploads in flight may hold together; at least 4/3 of `…_MAX_ZIP_BYTES` |
/// | `HALLMARK_SIGNER_ZIP_WORKERS` | 1 | threads that inflate zips and MAC them |
///
/// | `HALLMARK_SIGNER_SIGN_SCHEMAS` | `hallmark.sign.request.v1` | schemas taken on the sign input (request carriers) |
/// | `HALLMARK_SIGNER_VERIFY_SCHEMAS` | `hallmark.verify.request.v1,hallmark.sign.result.v1` | schemas taken on the verify input |
public struct SignerConfiguration: Sendable {
    public var signInput = "smileid.sign.requests"
    public var signOutput = "smileid.sign.results"
    public var verifyInput = "smileid.verify.requests"
    public var verifyOutput = "smileid.verify.results"
    public var securityTopic = "hallmark.security"
    public var schema = "signer"
    /// Secrets and PBKDF2 (`HALLMARK_SIGNER_SECRETS_DIR`, `…_WORKERS`, …).
    public var keys = SmileIDKeySettings(prefix: "HALLMARK_SIGNER_")
    public var timestampWindow: TimeInterval = 300
    public var sweepInterval: Duration = .seconds(30)
    /// Request carriers taken on the sign input.
    public var signSchemas: Set<String> = [SignRequest.schemaName]
    /// Request carriers taken on the verify input: a sign result is verified as it is.
    public var verifySchemas: Set<String> = [VerifyRequest.schemaName, SignResult.schemaName]
    /// Security event limits, per partner (`HALLMARK_SIGNER_ALERT_REJECTIONS`, …).
    public var events = SecurityEventSettings()
    public var maxZipBytes = 64 << 20
    public var maxZipEntries = 256
    public var zipMemoryBytes = 256 << 20
    public var zipWorkers = 1
    /// Operators whose keys may sign privacy requests (`HALLMARK_SIGNER_OPERATOR_KEYS_FILE` or
    /// `…_OPERATOR_KEYS`). With them, an index key and a database, the signer answers privacy
    /// requests about partners.
    public var operatorKeys = OperatorKeys.none
    /// The audit trail's subject index key (`HALLMARK_SIGNER_INDEX_KEY_FILE` or `…_INDEX_KEY`, b64).
    public var indexKey: Data?
    /// Privacy request and answer topics (`HALLMARK_PRIVACY_REQUESTS_TOPIC`, `…_RESULTS_TOPIC`).
    public var privacy = PrivacyTopics()
    /// The audit trail's copy (`HALLMARK_AUDIT_TOPIC`).
    public var auditTopic = "hallmark.audit"

    /// Whether privacy requests are answered (operator keys and an index key are set).
    public var answersPrivacyRequests: Bool { !operatorKeys.isEmpty && indexKey != nil }

    /// The limits every zip upload is held to.
    public var zipLimits: ZipLimits { ZipLimits(maxEntries: maxZipEntries, maxInflatedBytes: maxZipBytes) }

    public init() {}

    /// Reads the variables over the defaults; a malformed value throws, naming the variable.
    public static func fromEnvironment(_ env: [String: String]) throws(ConfigurationError) -> SignerConfiguration {
        let settings = Settings(env)
        var c = SignerConfiguration()
        c.signInput = try settings.topic("HALLMARK_SIGNER_SIGN_INPUT", default: c.signInput)
        c.signOutput = try settings.topic("HALLMARK_SIGNER_SIGN_OUTPUT", default: c.signOutput)
        c.verifyInput = try settings.topic("HALLMARK_SIGNER_VERIFY_INPUT", default: c.verifyInput)
        c.verifyOutput = try settings.topic("HALLMARK_SIGNER_VERIFY_OUTPUT", default: c.verifyOutput)
        c.securityTopic = try settings.topic("HALLMARK_SECURITY_TOPIC", default: c.securityTopic)
        guard c.signInput != c.verifyInput else {
            throw ConfigurationError(variable: "HALLMARK_SIGNER_VERIFY_INPUT", reason: "must differ from the sign input")
        }
        c.schema = try settings.identifier("HALLMARK_SIGNER_SCHEMA", default: c.schema)
        c.keys = try SmileIDKeySettings.fromEnvironment(env, prefix: "HALLMARK_SIGNER_")
        c.timestampWindow = TimeInterval(
            try settings.integer(
                "HALLMARK_SIGNER_WINDOW_SECONDS", default: 300,
                in: 1...(100 * 366 * 86_400)))
        c.sweepInterval = try settings.seconds("HALLMARK_SIGNER_SWEEP_SECONDS", default: c.sweepInterval, in: 1...86_400)
        c.events = try SecurityEventSettings.fromEnvironment(env, prefix: "HALLMARK_SIGNER_", subject: "PARTNER")
        c.maxZipBytes = try settings.integer("HALLMARK_SIGNER_MAX_ZIP_BYTES", default: c.maxZipBytes, in: 1...(1 << 30))
        c.maxZipEntries = try settings.integer("HALLMARK_SIGNER_MAX_ZIP_ENTRIES", default: c.maxZipEntries, in: 1...65_535)
        c.zipMemoryBytes = try settings.integer(
            "HALLMARK_SIGNER_ZIP_MEMORY_BYTES", default: c.zipMemoryBytes,
            in: 1...(1 << 40))
        guard c.zipMemoryBytes >= c.zipLimits.largestReservation else {
            throw ConfigurationError(
                variable: "HALLMARK_SIGNER_ZIP_MEMORY_BYTES",
                reason: "must hold one zip at HALLMARK_SIGNER_MAX_ZIP_BYTES signed as base64: "
                    + "at least \(c.zipLimits.largestReservation)")
        }
        c.zipWorkers = try settings.integer("HALLMARK_SIGNER_ZIP_WORKERS", default: c.zipWorkers, in: 1...64)
        c.signSchemas = try settings.requestCarriers("HALLMARK_SIGNER_SIGN_SCHEMAS", default: c.signSchemas)
        c.verifySchemas = try settings.requestCarriers("HALLMARK_SIGNER_VERIFY_SCHEMAS", default: c.verifySchemas)
        c.operatorKeys = try OperatorKeys.fromEnvironment(env, prefix: "HALLMARK_SIGNER")
        c.indexKey = try AuditTrail.indexKey(env, prefix: "HALLMARK_SIGNER")
        c.privacy = try PrivacyTopics.fromEnvironment(env)
        c.auditTopic = try settings.topic("HALLMARK_AUDIT_TOPIC", default: c.auditTopic)
        return c
    }

    /// The zip reader for these settings: its budget, and its worker pool (a `Service` to run
    /// beside the stage; without that, its threads start with the first zip).
    public func zipReader(service: String, logger: Logger) -> ZipUploadReader {
        ZipUploadReader(
            limits: zipLimits, budget: ZipMemoryBudget(capacity: zipMemoryBytes, service: service),
            pool: ZipWorkerPool(workers: zipWorkers, logger: logger), service: service, logger: logger)
    }
}
