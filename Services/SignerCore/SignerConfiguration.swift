import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkRuntime
import HallmarkSmileID
import HallmarkZip
import Logging

/// The signer's settings: its own, each declared once in ``settings``, then the shared ones it reads through
/// ``SmileIDKeySettings`` (`HALLMARK_SIGNER_SECRETS_DIR`, `…_SECRET_<VERSION>`,
/// `…_SIGNING_VERSION`, `…_WORKERS`, `…_BATCH`, `…_KEY_CACHE_SIZE`, `…_KEY_CACHE_TTL_SECONDS`),
/// ``SecurityEventSettings`` (`HALLMARK_SIGNER_ALERT_REJECTIONS`, `…_ALERT_WINDOW_SECONDS`,
/// `…_EVENTS_PER_PARTNER`, `…_EVENTS_PER_WINDOW`), ``OperatorKeys``, the audit index key and
/// ``PrivacyTopics``. `hallmark config` lists the declared ones with their values.
package struct SignerConfiguration: DeclaredSettings {
    package var signInput: String = declared(\.signInput)
    package var signOutput: String = declared(\.signOutput)
    package var verifyInput: String = declared(\.verifyInput)
    package var verifyOutput: String = declared(\.verifyOutput)
    package var securityTopic: String = declared(\.securityTopic)
    package var schema: String = declared(\.schema)
    /// Secrets and PBKDF2 (`HALLMARK_SIGNER_SECRETS_DIR`, `…_WORKERS`, …).
    package var keys = SmileIDKeySettings(prefix: Self.prefix)
    package var timestampWindow: TimeInterval = declared(\.timestampWindow)
    package var sweepInterval: Duration = declared(\.sweepInterval)
    /// Request carriers taken on the sign input.
    package var signSchemas: Set<String> = declared(\.signSchemas)
    /// Request carriers taken on the verify input: a sign result is verified as it is.
    package var verifySchemas: Set<String> = declared(\.verifySchemas)
    /// Security event limits, per partner (`HALLMARK_SIGNER_ALERT_REJECTIONS`, …).
    package var events = SecurityEventSettings()
    package var maxZipBytes: Int = declared(\.maxZipBytes)
    package var maxZipEntries: Int = declared(\.maxZipEntries)
    package var zipMemoryBytes: Int = declared(\.zipMemoryBytes)
    package var zipWorkers: Int = declared(\.zipWorkers)
    /// Operators whose keys may sign privacy requests (`HALLMARK_SIGNER_OPERATOR_KEYS_FILE` or
    /// `…_OPERATOR_KEYS`). With them, an index key and a database, the signer answers privacy
    /// requests about partners.
    package var operatorKeys = OperatorKeys.none
    /// The audit trail's subject index key (`HALLMARK_SIGNER_INDEX_KEY_FILE` or `…_INDEX_KEY`, b64).
    package var indexKey: Data?
    /// Privacy request and answer topics (`HALLMARK_PRIVACY_REQUESTS_TOPIC`, `…_RESULTS_TOPIC`).
    package var privacy = PrivacyTopics()
    /// The audit trail's copy (`HALLMARK_AUDIT_TOPIC`).
    package var auditTopic: String = declared(\.auditTopic)

    /// Whether privacy requests are answered (operator keys and an index key are set).
    package var answersPrivacyRequests: Bool { !operatorKeys.isEmpty && indexKey != nil }

    /// The limits every zip upload is held to.
    package var zipLimits: ZipLimits { ZipLimits(maxEntries: maxZipEntries, maxInflatedBytes: maxZipBytes) }

    package init() {}

    static let prefix = "HALLMARK_SIGNER_"

    /// Every setting, in the order `hallmark config` lists them.
    package static let settings: [ConfigurationSetting<Self>] = [
        .bind(
            \.signInput,
            .topic("HALLMARK_SIGNER_SIGN_INPUT", default: TopicCatalogue.signRequests.name, doc: "sign requests consumed")),
        .bind(
            \.signOutput,
            .topic("HALLMARK_SIGNER_SIGN_OUTPUT", default: TopicCatalogue.signResults.name, doc: "sign results produced")),
        .bind(
            \.verifyInput,
            .topic(
                "HALLMARK_SIGNER_VERIFY_INPUT", default: TopicCatalogue.verifyRequests.name,
                doc: "verify requests consumed (not the sign input)")),
        .bind(
            \.verifyOutput,
            .topic("HALLMARK_SIGNER_VERIFY_OUTPUT", default: TopicCatalogue.verifyResults.name, doc: "verify results produced")),
        .shared(\.securityTopic, StageConfiguration.Variable.securityTopic),
        .bind(\.schema, .identifier("HALLMARK_SIGNER_SCHEMA", default: "signer", doc: "PostgreSQL schema (inbox, replay table)")),
        .bind(
            \.timestampWindow,
            .integer(
                "HALLMARK_SIGNER_WINDOW_SECONDS", default: 300, in: 1...(100 * 366 * 86_400),
                doc: "timestamp window (±) and replay memory, in seconds"),
            as: { TimeInterval($0) }),
        .bind(
            \.sweepInterval,
            .seconds(
                "HALLMARK_SIGNER_SWEEP_SECONDS", default: .seconds(30), in: 1...86_400,
                doc: "how often expired replay entries are removed")),
        .bind(
            \.maxZipBytes,
            .integer(
                "HALLMARK_SIGNER_MAX_ZIP_BYTES", default: 64 << 20, in: 1...(1 << 30),
                doc: "bytes one zip upload may inflate to, all entries together")),
        .bind(
            \.maxZipEntries,
            .integer("HALLMARK_SIGNER_MAX_ZIP_ENTRIES", default: 256, in: 1...65_535, doc: "entries one zip upload may have")),
        .bind(
            \.zipMemoryBytes,
            .integer(
                "HALLMARK_SIGNER_ZIP_MEMORY_BYTES", default: 256 << 20, in: 1...(1 << 40),
                doc: "memory all zip uploads in flight may hold together; at least 4/3 of the zip limit")),
        .bind(
            \.zipWorkers,
            .integer("HALLMARK_SIGNER_ZIP_WORKERS", default: 1, in: 1...64, doc: "threads that inflate zips and MAC them")),
        .bind(
            \.signSchemas,
            .requestCarriers(
                "HALLMARK_SIGNER_SIGN_SCHEMAS", default: [SignRequest.schemaName], doc: "schemas taken on the sign input")),
        .bind(
            \.verifySchemas,
            .requestCarriers(
                "HALLMARK_SIGNER_VERIFY_SCHEMAS", default: [VerifyRequest.schemaName, SignResult.schemaName],
                doc: "schemas taken on the verify input")),
        .custom(SmileIDKeySettings.Variables(prefix: prefix).all) { c, s throws(ConfigurationError) in
            c.keys = try SmileIDKeySettings.fromEnvironment(s.environment, prefix: prefix)
        },
        .custom(SecurityEventSettings.Variables(prefix: prefix, subject: "PARTNER").all) { c, s throws(ConfigurationError) in
            c.events = try SecurityEventSettings.fromEnvironment(s.environment, prefix: prefix, subject: "PARTNER")
        },
        .custom(OperatorKeys.variable(prefix: "HALLMARK_SIGNER").all) { c, s throws(ConfigurationError) in
            c.operatorKeys = try OperatorKeys.fromEnvironment(s.environment, prefix: "HALLMARK_SIGNER")
        },
        .custom(AuditTrail.indexKeyVariable(prefix: "HALLMARK_SIGNER").all) { c, s throws(ConfigurationError) in
            c.indexKey = try AuditTrail.indexKey(s.environment, prefix: "HALLMARK_SIGNER")
        },
        // Every service reads these; `hallmark config` lists them with the runtime's.
        .custom([]) { c, s throws(ConfigurationError) in c.privacy = try PrivacyTopics.fromEnvironment(s.environment) },
        .shared(\.auditTopic, ServiceRunner.Variable.auditTopic),
    ]

    /// Reads the declared settings over the defaults, then checks them together; a malformed
    /// value throws, naming the variable.
    package static func fromEnvironment(_ env: [String: String]) throws(ConfigurationError) -> SignerConfiguration {
        let c = try SignerConfiguration().applying(Settings(env))
        guard c.signInput != c.verifyInput else {
            throw ConfigurationError(variable: variable(\.verifyInput), reason: "must differ from the sign input")
        }
        guard c.zipMemoryBytes >= c.zipLimits.largestReservation else {
            throw ConfigurationError(
                variable: variable(\.zipMemoryBytes),
                reason: "must hold one zip at \(variable(\.maxZipBytes)) signed as base64: "
                    + "at least \(c.zipLimits.largestReservation)")
        }
        return c
    }

    /// The zip reader for these settings: its budget, and its worker pool (a `Service` to run
    /// beside the stage; without that, its threads start with the first zip).
    package func zipReader(service: String, logger: Logger) -> ZipUploadReader {
        ZipUploadReader(
            limits: zipLimits, budget: ZipMemoryBudget(capacity: zipMemoryBytes, service: service),
            pool: ZipWorkerPool(workers: zipWorkers, logger: logger), service: service, logger: logger)
    }
}
