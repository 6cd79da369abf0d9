import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkPostgres
import HallmarkRuntime

/// The authority's settings: its own ``Variable``s, then ``OperatorKeys``
/// (`HALLMARK_AUTHORITY_OPERATOR_KEYS_FILE` or `…_OPERATOR_KEYS`; it refuses to start without
/// one), ``PrivacyTopics`` and the shared security and audit topics.
package struct AuthorityConfiguration: Sendable, Hashable {
    /// PostgreSQL schema.
    package var schema = Variable.schema.defaultValue
    package var provisionInput = Variable.provisionInput.defaultValue
    package var provisionOutput = Variable.provisionOutput.defaultValue
    package var tokenInput = Variable.tokenInput.defaultValue
    package var tokenOutput = Variable.tokenOutput.defaultValue
    package var adminInput = Variable.adminInput.defaultValue
    /// Security events (`HALLMARK_SECURITY_TOPIC`).
    package var securityTopic = StageConfiguration.Variable.securityTopic.defaultValue
    /// Audit records (``AuditTrail``). `HALLMARK_AUDIT_TOPIC`.
    package var auditTopic = ServiceRunner.Variable.auditTopic.defaultValue
    /// Privacy requests and answers (`HALLMARK_PRIVACY_REQUESTS_TOPIC`, `HALLMARK_PRIVACY_RESULTS_TOPIC`).
    package var privacy = PrivacyTopics()
    /// How long a validated token's nonce+ciphertext is remembered for replay detection.
    package var replayWindowSeconds = Variable.replayWindow.defaultValue
    /// Validations per device per rolling 24 h that raise a warning.
    package var warnThreshold = Variable.warnThreshold.defaultValue
    /// Validations per device per rolling 24 h that blacklist it.
    package var blacklistThreshold = Variable.blacklistThreshold.defaultValue
    /// Devices kept in the in-memory cache.
    package var deviceCacheSize = Variable.deviceCacheSize.defaultValue
    /// How long a cached device is trusted; bounds how late another replica sees an admin change.
    package var deviceCacheTTLMilliseconds = Variable.deviceCacheTTL.defaultValue
    /// Pause between re-sealing passes (rows under an old KEK).
    package var resealIntervalSeconds = Variable.resealInterval.defaultValue
    /// How often validation counts are flushed to PostgreSQL.
    package var countFlushMilliseconds = Variable.countFlush.defaultValue
    /// Rows re-sealed per transaction.
    package var resealBatch = Variable.resealBatch.defaultValue
    /// The operators' public keys that may sign admin commands (``OperatorKeys``).
    package var operatorKeys = OperatorKeys.none
    /// How far an admin command's `produced_at` may lie in the past or the future; outside it
    /// the command is `stale_command`. At most 30 minutes, so a replay inside the window is
    /// always still in the inbox (kept at least an hour), which makes it a no-op.
    package var adminWindowSeconds = Variable.adminWindow.defaultValue

    /// The defaults.
    package init() {}

    /// The authority's own variables, each declared once.
    package enum Variable {
        package static let schema = Setting.identifier(
            "HALLMARK_AUTHORITY_SCHEMA", default: "authority", doc: "PostgreSQL schema")
        package static let provisionInput = Setting.topic(
            "HALLMARK_AUTHORITY_PROVISION_INPUT", default: "birthmark.provision.requests", doc: "provision requests consumed")
        package static let provisionOutput = Setting.topic(
            "HALLMARK_AUTHORITY_PROVISION_OUTPUT", default: "birthmark.provision.results", doc: "provision results produced")
        package static let tokenInput = Setting.topic(
            "HALLMARK_AUTHORITY_TOKEN_INPUT", default: "birthmark.token.requests", doc: "token validation requests consumed")
        package static let tokenOutput = Setting.topic(
            "HALLMARK_AUTHORITY_TOKEN_OUTPUT", default: "birthmark.token.results", doc: "token validation results produced")
        package static let adminInput = Setting.topic(
            "HALLMARK_AUTHORITY_ADMIN_INPUT", default: "birthmark.authority.admin", doc: "signed admin commands consumed")
        package static let replayWindow = Setting.integer(
            "HALLMARK_AUTHORITY_REPLAY_WINDOW_S", default: 86_400, in: 1...(366 * 86_400),
            doc: "seconds a validated token is remembered for replay detection")
        package static let warnThreshold = Setting.integer(
            "HALLMARK_AUTHORITY_WARN_THRESHOLD", default: 8_000, in: 1...100_000_000,
            doc: "validations per device per rolling 24 h that raise a warning")
        package static let blacklistThreshold = Setting.integer(
            "HALLMARK_AUTHORITY_BLACKLIST_THRESHOLD", default: 10_000, in: 1...100_000_000,
            doc: "validations per device per rolling 24 h that blacklist it (above the warning)")
        package static let deviceCacheSize = Setting.integer(
            "HALLMARK_AUTHORITY_DEVICE_CACHE_SIZE", default: 100_000, in: 1...100_000_000,
            doc: "devices kept in the in-memory cache")
        package static let deviceCacheTTL = Setting.integer(
            "HALLMARK_AUTHORITY_DEVICE_CACHE_TTL_MS", default: 2_000, in: 1...3_600_000,
            doc: "milliseconds a cached device is trusted (how late another replica sees an admin change)")
        package static let resealInterval = Setting.integer(
            "HALLMARK_AUTHORITY_RESEAL_INTERVAL_S", default: 60, in: 1...86_400,
            doc: "seconds between re-sealing passes over rows under an old KEK")
        package static let resealBatch = Setting.integer(
            "HALLMARK_AUTHORITY_RESEAL_BATCH", default: 200, in: 1...100_000, doc: "rows re-sealed per transaction")
        package static let countFlush = Setting.integer(
            "HALLMARK_AUTHORITY_COUNT_FLUSH_MS", default: 1_000, in: 10...3_600_000,
            doc: "milliseconds between flushes of validation counts to PostgreSQL")
        // Three stages and the counter share it; with 4, the token stage's batch workers queue
        // for connections (docs/authority.md, Benchmark).
        package static let postgresPoolSize = PostgresConfiguration.Variable.poolSize(service: "authority", default: 16)
        package static let adminWindow = Setting.integer(
            "HALLMARK_AUTHORITY_ADMIN_WINDOW_S", default: 300, in: 1...1800,
            doc: "seconds an admin command's produced_at may be off; outside it, stale_command")

        /// Every variable, in the order `hallmark config` lists them (``postgresPoolSize`` with
        /// the connection URL, as every service's).
        package static var all: [SettingDescription] {
            [
                schema.description, provisionInput.description, provisionOutput.description, tokenInput.description,
                tokenOutput.description, adminInput.description, replayWindow.description, warnThreshold.description,
                blacklistThreshold.description, deviceCacheSize.description, deviceCacheTTL.description,
                resealInterval.description, resealBatch.description, countFlush.description, adminWindow.description,
            ] + KeyEncryptionFile.variable(prefix: "HALLMARK_AUTHORITY_").all
                + OperatorKeys.variable(prefix: "HALLMARK_AUTHORITY").all
        }
    }

    /// Every input topic.
    package var inputTopics: [String] { [provisionInput, tokenInput, adminInput, privacy.requests] }
    /// Every topic the authority reads or writes.
    package var topics: [String] { inputTopics + [provisionOutput, tokenOutput, auditTopic, privacy.results] }

    /// The variables that place an authority (its schema and topics) as this configuration
    /// does: what a test or a bench hands the process it starts.
    package var placementEnvironment: [String: String] {
        [
            Variable.schema.name: schema, Variable.provisionInput.name: provisionInput,
            Variable.provisionOutput.name: provisionOutput, Variable.tokenInput.name: tokenInput,
            Variable.tokenOutput.name: tokenOutput, Variable.adminInput.name: adminInput,
            StageConfiguration.Variable.securityTopic.name: securityTopic, ServiceRunner.Variable.auditTopic.name: auditTopic,
            "HALLMARK_PRIVACY_REQUESTS_TOPIC": privacy.requests, "HALLMARK_PRIVACY_RESULTS_TOPIC": privacy.results,
        ]
    }

    /// Applies the environment over the defaults.
    package static func fromEnvironment(_ env: [String: String]) throws(ConfigurationError) -> AuthorityConfiguration {
        let settings = Settings(env)
        var c = AuthorityConfiguration()
        c.schema = try settings.value(Variable.schema)
        c.provisionInput = try settings.value(Variable.provisionInput)
        c.provisionOutput = try settings.value(Variable.provisionOutput)
        c.tokenInput = try settings.value(Variable.tokenInput)
        c.tokenOutput = try settings.value(Variable.tokenOutput)
        c.adminInput = try settings.value(Variable.adminInput)
        c.securityTopic = try settings.value(StageConfiguration.Variable.securityTopic)
        c.auditTopic = try settings.value(ServiceRunner.Variable.auditTopic)
        c.privacy = try PrivacyTopics.fromEnvironment(env)
        c.replayWindowSeconds = try settings.value(Variable.replayWindow)
        c.warnThreshold = try settings.value(Variable.warnThreshold)
        c.blacklistThreshold = try settings.value(Variable.blacklistThreshold)
        c.deviceCacheSize = try settings.value(Variable.deviceCacheSize)
        c.deviceCacheTTLMilliseconds = try settings.value(Variable.deviceCacheTTL)
        c.resealIntervalSeconds = try settings.value(Variable.resealInterval)
        c.resealBatch = try settings.value(Variable.resealBatch)
        c.countFlushMilliseconds = try settings.value(Variable.countFlush)
        c.adminWindowSeconds = try settings.value(Variable.adminWindow)
        c.operatorKeys = try OperatorKeys.fromEnvironment(env)
        guard c.blacklistThreshold > c.warnThreshold else {
            throw ConfigurationError(
                variable: Variable.blacklistThreshold.name, reason: "must be above \(Variable.warnThreshold.name)")
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
