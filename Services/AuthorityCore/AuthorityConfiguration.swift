import Foundation
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

    /// The defaults.
    public init() {}

    /// Every input topic.
    public var inputTopics: [String] { [provisionInput, tokenInput, adminInput] }
    /// Every topic the authority reads or writes.
    public var topics: [String] { inputTopics + [provisionOutput, tokenOutput] }

    /// Applies the environment over the defaults.
    public static func fromEnvironment(_ env: [String: String]) throws -> AuthorityConfiguration {
        var c = AuthorityConfiguration()
        func text(_ name: String, _ value: inout String) { if let v = env[name], !v.isEmpty { value = v } }
        func number(_ name: String, _ value: inout Int) throws {
            guard let raw = env[name], !raw.isEmpty else { return }
            guard let v = Int(raw), v > 0 else { throw ConfigurationError(variable: name, reason: "must be a positive integer") }
            value = v
        }
        text("HALLMARK_AUTHORITY_SCHEMA", &c.schema)
        text("HALLMARK_AUTHORITY_PROVISION_INPUT", &c.provisionInput)
        text("HALLMARK_AUTHORITY_PROVISION_OUTPUT", &c.provisionOutput)
        text("HALLMARK_AUTHORITY_TOKEN_INPUT", &c.tokenInput)
        text("HALLMARK_AUTHORITY_TOKEN_OUTPUT", &c.tokenOutput)
        text("HALLMARK_AUTHORITY_ADMIN_INPUT", &c.adminInput)
        text("HALLMARK_SECURITY_TOPIC", &c.securityTopic)
        try number("HALLMARK_AUTHORITY_REPLAY_WINDOW_S", &c.replayWindowSeconds)
        try number("HALLMARK_AUTHORITY_WARN_THRESHOLD", &c.warnThreshold)
        try number("HALLMARK_AUTHORITY_BLACKLIST_THRESHOLD", &c.blacklistThreshold)
        try number("HALLMARK_AUTHORITY_DEVICE_CACHE_SIZE", &c.deviceCacheSize)
        try number("HALLMARK_AUTHORITY_DEVICE_CACHE_TTL_MS", &c.deviceCacheTTLMilliseconds)
        try number("HALLMARK_AUTHORITY_RESEAL_INTERVAL_S", &c.resealIntervalSeconds)
        try number("HALLMARK_AUTHORITY_RESEAL_BATCH", &c.resealBatch)
        try number("HALLMARK_AUTHORITY_COUNT_FLUSH_MS", &c.countFlushMilliseconds)
        guard c.blacklistThreshold > c.warnThreshold else {
            throw ConfigurationError(variable: "HALLMARK_AUTHORITY_BLACKLIST_THRESHOLD",
                                     reason: "must be above HALLMARK_AUTHORITY_WARN_THRESHOLD")
        }
        return c
    }
}
