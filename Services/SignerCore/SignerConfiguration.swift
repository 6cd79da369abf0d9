import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkRuntime
import HallmarkSmileID
import HallmarkZip
import Logging

/// The signer's settings: its own ``Variable``s, then the shared ones it reads through
/// ``SmileIDKeySettings`` (`HALLMARK_SIGNER_SECRETS_DIR`, `…_SECRET_<VERSION>`,
/// `…_SIGNING_VERSION`, `…_WORKERS`, `…_BATCH`, `…_KEY_CACHE_SIZE`, `…_KEY_CACHE_TTL_SECONDS`),
/// ``SecurityEventSettings`` (`HALLMARK_SIGNER_ALERT_REJECTIONS`, `…_ALERT_WINDOW_SECONDS`,
/// `…_EVENTS_PER_PARTNER`, `…_EVENTS_PER_WINDOW`), ``OperatorKeys``, the audit index key and
/// ``PrivacyTopics``. `hallmark config` lists the declared ones with their values.
package struct SignerConfiguration: Sendable {
    package var signInput = Variable.signInput.defaultValue
    package var signOutput = Variable.signOutput.defaultValue
    package var verifyInput = Variable.verifyInput.defaultValue
    package var verifyOutput = Variable.verifyOutput.defaultValue
    package var securityTopic = StageConfiguration.Variable.securityTopic.defaultValue
    package var schema = Variable.schema.defaultValue
    /// Secrets and PBKDF2 (`HALLMARK_SIGNER_SECRETS_DIR`, `…_WORKERS`, …).
    package var keys = SmileIDKeySettings(prefix: "HALLMARK_SIGNER_")
    package var timestampWindow = TimeInterval(Variable.window.defaultValue)
    package var sweepInterval = Variable.sweep.defaultValue
    /// Request carriers taken on the sign input.
    package var signSchemas = Variable.signSchemas.defaultValue
    /// Request carriers taken on the verify input: a sign result is verified as it is.
    package var verifySchemas = Variable.verifySchemas.defaultValue
    /// Security event limits, per partner (`HALLMARK_SIGNER_ALERT_REJECTIONS`, …).
    package var events = SecurityEventSettings()
    package var maxZipBytes = Variable.maxZipBytes.defaultValue
    package var maxZipEntries = Variable.maxZipEntries.defaultValue
    package var zipMemoryBytes = Variable.zipMemoryBytes.defaultValue
    package var zipWorkers = Variable.zipWorkers.defaultValue
    /// Operators whose keys may sign privacy requests (`HALLMARK_SIGNER_OPERATOR_KEYS_FILE` or
    /// `…_OPERATOR_KEYS`). With them, an index key and a database, the signer answers privacy
    /// requests about partners.
    package var operatorKeys = OperatorKeys.none
    /// The audit trail's subject index key (`HALLMARK_SIGNER_INDEX_KEY_FILE` or `…_INDEX_KEY`, b64).
    package var indexKey: Data?
    /// Privacy request and answer topics (`HALLMARK_PRIVACY_REQUESTS_TOPIC`, `…_RESULTS_TOPIC`).
    package var privacy = PrivacyTopics()
    /// The audit trail's copy (`HALLMARK_AUDIT_TOPIC`).
    package var auditTopic = ServiceRunner.Variable.auditTopic.defaultValue

    /// Whether privacy requests are answered (operator keys and an index key are set).
    package var answersPrivacyRequests: Bool { !operatorKeys.isEmpty && indexKey != nil }

    /// The limits every zip upload is held to.
    package var zipLimits: ZipLimits { ZipLimits(maxEntries: maxZipEntries, maxInflatedBytes: maxZipBytes) }

    package init() {}

    /// The signer's own variables, each declared once.
    package enum Variable {
        package static let signInput = Setting.topic(
            "HALLMARK_SIGNER_SIGN_INPUT", default: "smileid.sign.requests", doc: "sign requests consumed")
        package static let signOutput = Setting.topic(
            "HALLMARK_SIGNER_SIGN_OUTPUT", default: "smileid.sign.results", doc: "sign results produced")
        package static let verifyInput = Setting.topic(
            "HALLMARK_SIGNER_VERIFY_INPUT", default: "smileid.verify.requests",
            doc: "verify requests consumed (not the sign input)")
        package static let verifyOutput = Setting.topic(
            "HALLMARK_SIGNER_VERIFY_OUTPUT", default: "smileid.verify.results", doc: "verify results produced")
        package static let schema = Setting.identifier(
            "HALLMARK_SIGNER_SCHEMA", default: "signer", doc: "PostgreSQL schema (inbox, replay table)")
        package static let window = Setting.integer(
            "HALLMARK_SIGNER_WINDOW_SECONDS", default: 300, in: 1...(100 * 366 * 86_400),
            doc: "timestamp window (±) and replay memory, in seconds")
        package static let sweep = Setting.seconds(
            "HALLMARK_SIGNER_SWEEP_SECONDS", default: .seconds(30), in: 1...86_400,
            doc: "how often expired replay entries are removed")
        package static let maxZipBytes = Setting.integer(
            "HALLMARK_SIGNER_MAX_ZIP_BYTES", default: 64 << 20, in: 1...(1 << 30),
            doc: "bytes one zip upload may inflate to, all entries together")
        package static let maxZipEntries = Setting.integer(
            "HALLMARK_SIGNER_MAX_ZIP_ENTRIES", default: 256, in: 1...65_535, doc: "entries one zip upload may have")
        package static let zipMemoryBytes = Setting.integer(
            "HALLMARK_SIGNER_ZIP_MEMORY_BYTES", default: 256 << 20, in: 1...(1 << 40),
            doc: "memory all zip uploads in flight may hold together; at least 4/3 of the zip limit")
        package static let zipWorkers = Setting.integer(
            "HALLMARK_SIGNER_ZIP_WORKERS", default: 1, in: 1...64, doc: "threads that inflate zips and MAC them")
        package static let signSchemas = Setting.requestCarriers(
            "HALLMARK_SIGNER_SIGN_SCHEMAS", default: [SignRequest.schemaName], doc: "schemas taken on the sign input")
        package static let verifySchemas = Setting.requestCarriers(
            "HALLMARK_SIGNER_VERIFY_SCHEMAS", default: [VerifyRequest.schemaName, SignResult.schemaName],
            doc: "schemas taken on the verify input")

        /// Every variable, in the order `hallmark config` lists them.
        package static var all: [SettingDescription] {
            own + SmileIDKeySettings.Variables(prefix: "HALLMARK_SIGNER_").all
                + SecurityEventSettings.Variables(prefix: "HALLMARK_SIGNER_", subject: "PARTNER").all
                + OperatorKeys.variable(prefix: "HALLMARK_SIGNER").all
                + AuditTrail.indexKeyVariable(prefix: "HALLMARK_SIGNER").all
        }

        static var own: [SettingDescription] {
            [
                signInput.description, signOutput.description, verifyInput.description, verifyOutput.description,
                schema.description, window.description, sweep.description, maxZipBytes.description,
                maxZipEntries.description, zipMemoryBytes.description, zipWorkers.description, signSchemas.description,
                verifySchemas.description,
            ]
        }
    }

    /// Reads the variables over the defaults; a malformed value throws, naming the variable.
    package static func fromEnvironment(_ env: [String: String]) throws(ConfigurationError) -> SignerConfiguration {
        let settings = Settings(env)
        var c = SignerConfiguration()
        c.signInput = try settings.value(Variable.signInput)
        c.signOutput = try settings.value(Variable.signOutput)
        c.verifyInput = try settings.value(Variable.verifyInput)
        c.verifyOutput = try settings.value(Variable.verifyOutput)
        c.securityTopic = try settings.value(StageConfiguration.Variable.securityTopic)
        guard c.signInput != c.verifyInput else {
            throw ConfigurationError(variable: Variable.verifyInput.name, reason: "must differ from the sign input")
        }
        c.schema = try settings.value(Variable.schema)
        c.keys = try SmileIDKeySettings.fromEnvironment(env, prefix: "HALLMARK_SIGNER_")
        c.timestampWindow = TimeInterval(try settings.value(Variable.window))
        c.sweepInterval = try settings.value(Variable.sweep)
        c.events = try SecurityEventSettings.fromEnvironment(env, prefix: "HALLMARK_SIGNER_", subject: "PARTNER")
        c.maxZipBytes = try settings.value(Variable.maxZipBytes)
        c.maxZipEntries = try settings.value(Variable.maxZipEntries)
        c.zipMemoryBytes = try settings.value(Variable.zipMemoryBytes)
        guard c.zipMemoryBytes >= c.zipLimits.largestReservation else {
            throw ConfigurationError(
                variable: Variable.zipMemoryBytes.name,
                reason: "must hold one zip at \(Variable.maxZipBytes.name) signed as base64: "
                    + "at least \(c.zipLimits.largestReservation)")
        }
        c.zipWorkers = try settings.value(Variable.zipWorkers)
        c.signSchemas = try settings.value(Variable.signSchemas)
        c.verifySchemas = try settings.value(Variable.verifySchemas)
        c.operatorKeys = try OperatorKeys.fromEnvironment(env, prefix: "HALLMARK_SIGNER")
        c.indexKey = try AuditTrail.indexKey(env, prefix: "HALLMARK_SIGNER")
        c.privacy = try PrivacyTopics.fromEnvironment(env)
        c.auditTopic = try settings.value(ServiceRunner.Variable.auditTopic)
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
