import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkPostgres
import HallmarkRuntime
import HallmarkMessages

/// The authority's settings, each declared once in ``settings``: its own, the KEKs and
/// ``OperatorKeys`` (`HALLMARK_AUTHORITY_OPERATOR_KEYS_FILE` or `…_OPERATOR_KEYS`; it refuses
/// to start without one), ``PrivacyTopics`` and the shared security and audit topics.
package struct AuthorityConfiguration: DeclaredSettings, Hashable {
    /// PostgreSQL schema.
    package var schema: String = declared(\.schema)
    package var provisionInput: String = declared(\.provisionInput)
    package var provisionOutput: String = declared(\.provisionOutput)
    package var tokenInput: String = declared(\.tokenInput)
    package var tokenOutput: String = declared(\.tokenOutput)
    package var adminInput: String = declared(\.adminInput)
    /// Security events (`HALLMARK_SECURITY_TOPIC`).
    package var securityTopic: String = declared(\.securityTopic)
    /// Audit records (``AuditTrail``). `HALLMARK_AUDIT_TOPIC`.
    package var auditTopic: String = declared(\.auditTopic)
    /// Privacy requests and answers (`HALLMARK_PRIVACY_REQUESTS_TOPIC`, `HALLMARK_PRIVACY_RESULTS_TOPIC`).
    package var privacy = PrivacyTopics()
    /// How long a validated token's nonce+ciphertext is remembered for replay detection.
    package var replayWindowSeconds: Int = declared(\.replayWindowSeconds)
    /// Validations per device per rolling 24 h that raise a warning.
    package var warnThreshold: Int = declared(\.warnThreshold)
    /// Validations per device per rolling 24 h that blacklist it.
    package var blacklistThreshold: Int = declared(\.blacklistThreshold)
    /// Devices kept in the in-memory cache.
    package var deviceCacheSize: Int = declared(\.deviceCacheSize)
    /// How long a cached device is trusted; bounds how late another replica sees an admin change.
    package var deviceCacheTTLMilliseconds: Int = declared(\.deviceCacheTTLMilliseconds)
    /// Pause between re-sealing passes (rows under an old KEK).
    package var resealIntervalSeconds: Int = declared(\.resealIntervalSeconds)
    /// How often validation counts are flushed to PostgreSQL.
    package var countFlushMilliseconds: Int = declared(\.countFlushMilliseconds)
    /// Rows re-sealed per transaction.
    package var resealBatch: Int = declared(\.resealBatch)
    /// How long a device certificate issued at provisioning is valid (DESIGN BM-CERT).
    package var certificateDays: Int = declared(\.certificateDays)
    /// The operators' public keys that may sign admin commands (``OperatorKeys``).
    package var operatorKeys = OperatorKeys.none
    /// How far an admin command's `produced_at` may lie in the past or the future; outside it
    /// the command is `stale_command`. At most 30 minutes, so a replay inside the window is
    /// always still in the inbox (kept at least an hour), which makes it a no-op.
    package var adminWindowSeconds: Int = declared(\.adminWindowSeconds)

    /// The defaults.
    package init() {}

    /// The authority's pool size: its own default, listed with the connection URL as every
    /// service's. Three stages and the counter share it; with 4, the token stage's batch
    /// workers queue for connections (docs/authority.md, Benchmark).
    package static let postgresPoolSize = PostgresConfiguration.Variable.poolSize(service: "authority", default: 16)

    /// Every setting, in the order `hallmark config` lists them.
    package static let settings: [ConfigurationSetting<Self>] = [
        .bind(\.schema, .identifier("HALLMARK_AUTHORITY_SCHEMA", default: "authority", doc: "PostgreSQL schema"), placing: true),
        .bind(
            \.provisionInput,
            .topic(
                "HALLMARK_AUTHORITY_PROVISION_INPUT", default: TopicCatalogue.provisionRequests.name,
                doc: "provision requests consumed"), placing: true),
        .bind(
            \.provisionOutput,
            .topic(
                "HALLMARK_AUTHORITY_PROVISION_OUTPUT", default: TopicCatalogue.provisionResults.name,
                doc: "provision results produced"), placing: true),
        .bind(
            \.tokenInput,
            .topic(
                "HALLMARK_AUTHORITY_TOKEN_INPUT", default: TopicCatalogue.tokenRequests.name,
                doc: "token validation requests consumed"), placing: true),
        .bind(
            \.tokenOutput,
            .topic(
                "HALLMARK_AUTHORITY_TOKEN_OUTPUT", default: TopicCatalogue.tokenResults.name,
                doc: "token validation results produced"), placing: true),
        .bind(
            \.adminInput,
            .topic(
                "HALLMARK_AUTHORITY_ADMIN_INPUT", default: TopicCatalogue.authorityAdmin.name,
                doc: "signed admin commands consumed"),
            placing: true),
        .bind(
            \.replayWindowSeconds,
            .integer(
                "HALLMARK_AUTHORITY_REPLAY_WINDOW_S", default: 86_400, in: 1...(366 * 86_400),
                doc: "seconds a validated token is remembered for replay detection")),
        .bind(
            \.warnThreshold,
            .integer(
                "HALLMARK_AUTHORITY_WARN_THRESHOLD", default: 8_000, in: 1...100_000_000,
                doc: "validations per device per rolling 24 h that raise a warning")),
        .bind(
            \.blacklistThreshold,
            .integer(
                "HALLMARK_AUTHORITY_BLACKLIST_THRESHOLD", default: 10_000, in: 1...100_000_000,
                doc: "validations per device per rolling 24 h that blacklist it (above the warning)")),
        .bind(
            \.deviceCacheSize,
            .integer(
                "HALLMARK_AUTHORITY_DEVICE_CACHE_SIZE", default: 100_000, in: 1...100_000_000,
                doc: "devices kept in the in-memory cache")),
        .bind(
            \.deviceCacheTTLMilliseconds,
            .integer(
                "HALLMARK_AUTHORITY_DEVICE_CACHE_TTL_MS", default: 2_000, in: 1...3_600_000,
                doc: "milliseconds a cached device is trusted (how late another replica sees an admin change)")),
        .bind(
            \.resealIntervalSeconds,
            .integer(
                "HALLMARK_AUTHORITY_RESEAL_INTERVAL_S", default: 60, in: 1...86_400,
                doc: "seconds between re-sealing passes over rows under an old KEK")),
        .bind(
            \.resealBatch,
            .integer("HALLMARK_AUTHORITY_RESEAL_BATCH", default: 200, in: 1...100_000, doc: "rows re-sealed per transaction")),
        .bind(
            \.certificateDays,
            .integer(
                "HALLMARK_AUTHORITY_CERTIFICATE_DAYS", default: 365, in: 1...3650,
                doc: "how long a device certificate issued at provisioning is valid, days")),
        .bind(
            \.countFlushMilliseconds,
            .integer(
                "HALLMARK_AUTHORITY_COUNT_FLUSH_MS", default: 1_000, in: 10...3_600_000,
                doc: "milliseconds between flushes of validation counts to PostgreSQL")),
        .bind(
            \.adminWindowSeconds,
            .integer(
                "HALLMARK_AUTHORITY_ADMIN_WINDOW_S", default: 300, in: 1...1800,
                doc: "seconds an admin command's produced_at may be off; outside it, stale_command")),
        // The KEKs are read with the other secrets (``AuthoritySecrets``).
        .custom(KeyEncryptionFile.variable(prefix: "HALLMARK_AUTHORITY_").all) { _, _ in },
        .custom(OperatorKeys.variable(prefix: "HALLMARK_AUTHORITY").all) { c, s throws(ConfigurationError) in
            c.operatorKeys = try OperatorKeys.fromEnvironment(s.environment)
        },
        // Every service reads these; `hallmark config` lists them with the runtime's.
        .shared(\.securityTopic, StageConfiguration.Variable.securityTopic, placing: true),
        .shared(\.auditTopic, ServiceRunner.Variable.auditTopic, placing: true),
        .custom([], placement: { $0.privacy.placementEnvironment }) { c, s throws(ConfigurationError) in
            c.privacy = try PrivacyTopics.fromEnvironment(s.environment)
        },
    ]

    /// Every input topic.
    package var inputTopics: [String] { [provisionInput, tokenInput, adminInput, privacy.requests] }
    /// Every topic the authority reads or writes.
    package var topics: [String] { inputTopics + [provisionOutput, tokenOutput, auditTopic, privacy.results] }

    /// Reads the declared settings over the defaults, then checks them together.
    package static func fromEnvironment(_ env: [String: String]) throws(ConfigurationError) -> AuthorityConfiguration {
        let c = try AuthorityConfiguration().applying(Settings(env))
        guard c.blacklistThreshold > c.warnThreshold else {
            throw ConfigurationError(
                variable: variable(\.blacklistThreshold), reason: "must be above \(variable(\.warnThreshold))")
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
