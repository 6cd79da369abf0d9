import Foundation
import HallmarkCore
import HallmarkRuntime

/// The authority's settings, from `HALLMARK_AUTHORITY_…` variables (defaults in brackets).
public struct AuthorityConfiguration: Sendable, Hashable {
    /// PostgreSQL schema. `HALLMARK_AUTHORITY_SCHEMA` [`authority`].
    public var schema = "authority"
    /// `HALLMARK_AUTHORITY_PROVISION_INPUT` [`birthmark.provision.requests`].
    public var provisionInput = "birthmark.provision.requests"
    /// `HALLMARK_AUTHORITY_PROVISION_OUTPUT` [`birthmark.provision.results`].
    public var provisionOutput = "birthmark.provision.results"
    /// `HALLMARK_AUTHORITY_TOKEN_INPUT` [`birthmark.token.requests`].
    public var tokenInput = "birthmark.token.requests"
    /// `HALLMARK_AUTHORITY_TOKEN_OUTPUT` [`birthmark.token.results`].
    public var tokenOutput = "birthmark.token.results"
    /// `HALLMARK_AUTHORITY_ADMIN_INPUT` [`birthmark.authority.admin`].
    public var adminInput = "birthmark.authority.admin"
    /// Security events. `HALLMARK_SECURITY_TOPIC` [`hallmark.security`].
    public var securityTopic = "hallmark.security"
    /// Audit records (``AuditTrail``). `HALLMARK_AUDIT_TOPIC` [`hallmark.audit`].
    public var auditTopic = "hallmark.audit"
    /// Privacy requests and answers. `HALLMARK_PRIVACY_REQUESTS_TOPIC`
    /// [`hallmark.privacy.requests`], `HALLMARK_PRIVACY_RESULTS_TOPIC` [`hallmark.privacy.results`].
    public var privacy = PrivacyTopics()
    /// How long a validated token's nonce+ciphertext is remembered for replay detection.
    /// `HALLMARK_AUTHORITY_REPLAY_WINDOW_S` [86400].
    public var replayWindowSeconds = 86_400
    /// Validations per device per rolling 24 h that raise a warning.
    /// `HALLMARK_AUTHORITY_WARN_THRESHOLD` [8000].
    public var warnThreshold = 8_000
    /// Validations per device per rolling 24 h that blacklist it.
    /// `HALLMARK_AUTHORITY_BLACKLIST_THRESHOLD` [10000].
    public var blacklistThreshold = 10_000
    /// Devices kept in the in-memory cache. `HALLMARK_AUTHORITY_DEVICE_CACHE_SIZE` [100000].
    public var deviceCacheSize = 100_000
    /// How long a cached device is trusted; bounds how late another replica sees an admin
    /// change. `HALLMARK_AUTHORITY_DEVICE_CACHE_TTL_MS` [2000].
    public var deviceCacheTTLMilliseconds = 2_000
    /// Pause between re-sealing passes (rows under an old KEK).
    /// `HALLMARK_AUTHORITY_RESEAL_INTERVAL_S` [60].
    public var resealIntervalSeconds = 60
    /// How often validation counts are flushed to PostgreSQL.
    /// `HALLMARK_AUTHORITY_COUNT_FLUSH_MS` [1000].
    public var countFlushMilliseconds = 1_000
    /// Rows re-sealed per transaction. `HALLMARK_AUTHORITY_RESEAL_BATCH` [200].
    public var resealBatch = 200
    /// The operators' public keys that may sign admin commands (``OperatorKeys``):
    /// `HALLMARK_AUTHORITY_OPERATOR_KEYS_FILE` or `HALLMARK_AUTHORITY_OPERATOR_KEYS`. The
    /// service refuses to start without one.
    public var operatorKeys = OperatorKeys.none
    /// How far an admin command's `produced_at` may lie in the past or the future; outside it
    /// the command is `stale_command`. At most 30 minutes, so a replay inside the window is
    /// always still in the inbox (kept at least an hour), which makes it a no-op.
    /// `HALLMARK_AUTHORITY_ADMIN_WINDOW_S` [300].
    public var adminWindowSeconds = 300

    /// The defaults.
    public init() {}

    /// Every input topic.
    public var inputTopics: [String] { [provisionInput, tokenInput, adminInput, privacy.requests] }
    /// Every topic the authority reads or writes.
    public var topics: [String] { inputTopics + [provisionOutput, tokenOutput, auditTopic, privacy.results] }

    /// The variables that place an authority (its schema and topics) as this configuration
    /// does: what a test or a bench hands the process it starts.
    public var placementEnvironment: [String: String] {
        [
            "HALLMARK_AUTHORITY_SCHEMA": schema, "HALLMARK_AUTHORITY_PROVISION_INPUT": provisionInput,
            "HALLMARK_AUTHORITY_PROVISION_OUTPUT": provisionOutput, "HALLMARK_AUTHORITY_TOKEN_INPUT": tokenInput,
            "HALLMARK_AUTHORITY_TOKEN_OUTPUT": tokenOutput, "HALLMARK_AUTHORITY_ADMIN_INPUT": adminInput,
            "HALLMARK_SECURITY_TOPIC": securityTopic, "HALLMARK_AUDIT_TOPIC": auditTopic,
            "HALLMARK_PRIVACY_REQUESTS_TOPIC": privacy.requests, "HALLMARK_PRIVACY_RESULTS_TOPIC": privacy.results,
        ]
    }

    /// Applies the environment over the defaults.
    public static func fromEnvironment(_ env: [String: String]) throws(ConfigurationError) -> AuthorityConfiguration {
        let settings = Settings(env)
        var c = AuthorityConfiguration()
        c.schema = try settings.identifier("HALLMARK_AUTHORITY_SCHEMA", default: c.schema)
        c.provisionInput = try settings.topic("HALLMARK_AUTHORITY_PROVISION_INPUT", default: c.provisionInput)
        c.provisionOutput = try settings.topic("HALLMARK_AUTHORITY_PROVISION_OUTPUT", default: c.provisionOutput)
        c.tokenInput = try settings.topic("HALLMARK_AUTHORITY_TOKEN_INPUT", default: c.tokenInput)
        c.tokenOutput = try settings.topic("HALLMARK_AUTHORITY_TOKEN_OUTPUT", default: c.tokenOutput)
        c.adminInput = try settings.topic("HALLMARK_AUTHORITY_ADMIN_INPUT", default: c.adminInput)
        c.securityTopic = try settings.topic("HALLMARK_SECURITY_TOPIC", default: c.securityTopic)
        c.auditTopic = try settings.topic("HALLMARK_AUDIT_TOPIC", default: c.auditTopic)
        c.privacy = try PrivacyTopics.fromEnvironment(env)
        c.replayWindowSeconds = try settings.integer(
            "HALLMARK_AUTHORITY_REPLAY_WINDOW_S", default: c.replayWindowSeconds,
            in: 1...(366 * 86_400))
        c.warnThreshold = try settings.integer(
            "HALLMARK_AUTHORITY_WARN_THRESHOLD", default: c.warnThreshold,
            in: 1...100_000_000)
        c.blacklistThreshold = try settings.integer(
            "HALLMARK_AUTHORITY_BLACKLIST_THRESHOLD",
            default: c.blacklistThreshold, in: 1...100_000_000)
        c.deviceCacheSize = try settings.integer(
            "HALLMARK_AUTHORITY_DEVICE_CACHE_SIZE", default: c.deviceCacheSize,
            in: 1...100_000_000)
        c.deviceCacheTTLMilliseconds = try settings.integer(
            "HALLMARK_AUTHORITY_DEVICE_CACHE_TTL_MS",
            default: c.deviceCacheTTLMilliseconds, in: 1...3_600_000)
        c.resealIntervalSeconds = try settings.integer(
            "HALLMARK_AUTHORITY_RESEAL_INTERVAL_S",
            default: c.resealIntervalSeconds, in: 1...86_400)
        c.resealBatch = try settings.integer("HALLMARK_AUTHORITY_RESEAL_BATCH", default: c.resealBatch, in: 1...100_000)
        c.countFlushMilliseconds = try settings.integer(
            "HALLMARK_AUTHORITY_COUNT_FLUSH_MS",
            default: c.countFlushMilliseconds, in: 10...3_600_000)
        c.adminWindowSeconds = try settings.integer(
            "HALLMARK_AUTHORITY_ADMIN_WINDOW_S", default: c.adminWindowSeconds,
            in: 1...1800)
        c.operatorKeys = try OperatorKeys.fromEnvironment(env)
        guard c.blacklistThreshold > c.warnThreshold else {
            throw ConfigurationError(
                variable: "HALLMARK_AUTHORITY_BLACKLIST_THRESHOLD",
                reason: "must be above HALLMARK_AUTHORITY_WARN_THRESHOLD")
        }
        return c
    }
}

extension AuthorityConfiguration {
    /// The authority's audit trail: its schema, the audit topic, subjects indexed under the
    /// authority's index key.
    func auditTrail(_ secrets: AuthoritySecrets) -> AuditTrail {
        AuditTrail(schema: schema, service: "authority", topic: auditTopic, indexKey: secrets.indexKey)
    }
}
