import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkRuntime
import HallmarkSmileID

/// The gateway's settings: its own ``Variable``s, the encryption policy's
/// (``EncryptionPolicy``), and the shared ones it reads through ``SmileIDKeySettings``
/// (`HALLMARK_GATEWAY_SECRETS_DIR`, `…_SECRET_<VERSION>`, `…_SIGNING_VERSION` (it encrypts),
/// `…_WORKERS`, `…_BATCH`, `…_KEY_CACHE_SIZE`, `…_KEY_CACHE_TTL_SECONDS`),
/// ``SecurityEventSettings`` (`HALLMARK_GATEWAY_ALERT_REJECTIONS`, `…_ALERT_WINDOW_SECONDS`,
/// `…_EVENTS_PER_SUBJECT`, `…_EVENTS_PER_WINDOW`, per E2EE-1 session and per ENC-1 partner),
/// the KEKs sealing session keys (`HALLMARK_GATEWAY_KEK_FILE` / `HALLMARK_GATEWAY_KEK`,
/// ``KeyEncryptionFile``), ``OperatorKeys``, the audit index key and ``PrivacyTopics``.
package struct GatewayConfiguration: Sendable {
    package var encryptInput = Variable.encryptInput.defaultValue
    package var encryptOutput = Variable.encryptOutput.defaultValue
    package var decryptInput = Variable.decryptInput.defaultValue
    package var decryptOutput = Variable.decryptOutput.defaultValue
    package var handshakeInput = Variable.handshakeInput.defaultValue
    package var handshakeOutput = Variable.handshakeOutput.defaultValue
    package var inboundInput = Variable.inboundInput.defaultValue
    package var plaintextOutput = Variable.plaintextOutput.defaultValue
    package var outboundInput = Variable.outboundInput.defaultValue
    package var outboundOutput = Variable.outboundOutput.defaultValue
    package var schema = Variable.schema.defaultValue
    package var sessionTTL = TimeInterval(Variable.sessionTTL.defaultValue)
    package var sweepInterval = Variable.sweep.defaultValue
    package var encryptSchemas = Variable.encryptSchemas.defaultValue
    package var decryptSchemas = Variable.decryptSchemas.defaultValue
    /// Secrets and PBKDF2 (`HALLMARK_GATEWAY_SECRETS_DIR`, `…_WORKERS`, …).
    package var keys = SmileIDKeySettings(prefix: "HALLMARK_GATEWAY_")
    package var timestampWindow = TimeInterval(Variable.window.defaultValue)
    package var policy = EncryptionPolicy()
    package var securityTopic = StageConfiguration.Variable.securityTopic.defaultValue
    /// Operators whose keys may sign privacy requests (`HALLMARK_GATEWAY_OPERATOR_KEYS_FILE` or
    /// `…_OPERATOR_KEYS`). With them and an index key (`HALLMARK_GATEWAY_INDEX_KEY_FILE`, else
    /// the KEK file's `index=` entry), the gateway answers privacy requests about sessions.
    package var operatorKeys = OperatorKeys.none
    /// The audit trail's subject index key, when given on its own.
    package var indexKey: Data?
    /// Privacy request and answer topics (`HALLMARK_PRIVACY_REQUESTS_TOPIC`, `…_RESULTS_TOPIC`).
    package var privacy = PrivacyTopics()
    /// The audit trail's copy (`HALLMARK_AUDIT_TOPIC`).
    package var auditTopic = ServiceRunner.Variable.auditTopic.defaultValue
    /// Security event limits, per session and per partner (`HALLMARK_GATEWAY_ALERT_REJECTIONS`, …).
    package var events = SecurityEventSettings()

    package init() {}

    /// The gateway's own variables, each declared once.
    package enum Variable {
        package static let encryptInput = Setting.topic(
            "HALLMARK_GATEWAY_ENCRYPT_INPUT", default: "smileid.encrypt.requests", doc: "encrypt requests consumed")
        package static let encryptOutput = Setting.topic(
            "HALLMARK_GATEWAY_ENCRYPT_OUTPUT", default: "smileid.encrypt.results", doc: "encrypt results produced")
        package static let decryptInput = Setting.topic(
            "HALLMARK_GATEWAY_DECRYPT_INPUT", default: "smileid.decrypt.requests", doc: "decrypt requests consumed")
        package static let decryptOutput = Setting.topic(
            "HALLMARK_GATEWAY_DECRYPT_OUTPUT", default: "smileid.decrypt.results", doc: "decrypt results produced")
        package static let handshakeInput = Setting.topic(
            "HALLMARK_GATEWAY_HANDSHAKE_INPUT", default: "e2ee.handshakes", doc: "E2EE-1 handshakes consumed")
        package static let handshakeOutput = Setting.topic(
            "HALLMARK_GATEWAY_HANDSHAKE_OUTPUT", default: "e2ee.handshake.results", doc: "E2EE-1 handshake results")
        package static let inboundInput = Setting.topic(
            "HALLMARK_GATEWAY_INBOUND_INPUT", default: "e2ee.inbound", doc: "client→gateway messages consumed")
        package static let plaintextOutput = Setting.topic(
            "HALLMARK_GATEWAY_PLAINTEXT_OUTPUT", default: "e2ee.plaintext", doc: "client→gateway messages, decrypted")
        package static let outboundInput = Setting.topic(
            "HALLMARK_GATEWAY_OUTBOUND_INPUT", default: "e2ee.outbound.requests", doc: "gateway→client messages to seal")
        package static let outboundOutput = Setting.topic(
            "HALLMARK_GATEWAY_OUTBOUND_OUTPUT", default: "e2ee.outbound", doc: "gateway→client messages, sealed")
        package static let schema = Setting.identifier(
            "HALLMARK_GATEWAY_SCHEMA", default: "gateway", doc: "PostgreSQL schema (sessions, inbox)")
        package static let sessionTTL = Setting.integer(
            "HALLMARK_GATEWAY_SESSION_TTL_SECONDS", default: 86_400, in: 1...(366 * 86_400),
            doc: "a session's lifetime from its handshake, in seconds")
        package static let sweep = Setting.seconds(
            "HALLMARK_GATEWAY_SWEEP_SECONDS", default: .seconds(60), in: 1...86_400,
            doc: "how often expired sessions (and their keys) are deleted")
        package static let encryptSchemas = Setting.requestCarriers(
            "HALLMARK_GATEWAY_ENCRYPT_SCHEMAS", default: [EncryptRequest.schemaName],
            doc: "request carriers taken on the encrypt input")
        package static let decryptSchemas = Setting.requestCarriers(
            "HALLMARK_GATEWAY_DECRYPT_SCHEMAS", default: [DecryptRequest.schemaName],
            doc: "request carriers taken on the decrypt input")
        package static let window = Setting.integer(
            "HALLMARK_GATEWAY_WINDOW_SECONDS", default: 300, in: 1...(100 * 366 * 86_400),
            doc: "± seconds a decrypted envelope's timestamp may be from now")

        /// Every variable, in the order `hallmark config` lists them.
        package static var all: [SettingDescription] {
            own + SmileIDKeySettings.Variables(prefix: "HALLMARK_GATEWAY_").all
                + SecurityEventSettings.Variables(prefix: "HALLMARK_GATEWAY_", subject: "SUBJECT").all
                + EncryptionPolicy.Variable.all + KeyEncryptionFile.variable(prefix: "HALLMARK_GATEWAY_").all
                + OperatorKeys.variable(prefix: "HALLMARK_GATEWAY").all
                + AuditTrail.indexKeyVariable(prefix: "HALLMARK_GATEWAY").all
        }

        static var own: [SettingDescription] {
            [
                encryptInput.description, encryptOutput.description, decryptInput.description,
                decryptOutput.description, handshakeInput.description, handshakeOutput.description,
                inboundInput.description, plaintextOutput.description, outboundInput.description,
                outboundOutput.description, schema.description, sessionTTL.description, sweep.description,
                encryptSchemas.description, decryptSchemas.description, window.description,
            ]
        }
    }

    /// Reads the variables over the defaults; a malformed value throws, naming the variable.
    package static func fromEnvironment(_ env: [String: String]) throws(ConfigurationError) -> GatewayConfiguration {
        let settings = Settings(env)
        var c = GatewayConfiguration()
        c.encryptInput = try settings.value(Variable.encryptInput)
        c.encryptOutput = try settings.value(Variable.encryptOutput)
        c.decryptInput = try settings.value(Variable.decryptInput)
        c.decryptOutput = try settings.value(Variable.decryptOutput)
        guard c.encryptInput != c.decryptInput else {
            throw ConfigurationError(variable: Variable.decryptInput.name, reason: "must differ from the encrypt input")
        }
        c.handshakeInput = try settings.value(Variable.handshakeInput)
        c.handshakeOutput = try settings.value(Variable.handshakeOutput)
        c.inboundInput = try settings.value(Variable.inboundInput)
        c.plaintextOutput = try settings.value(Variable.plaintextOutput)
        c.outboundInput = try settings.value(Variable.outboundInput)
        c.outboundOutput = try settings.value(Variable.outboundOutput)
        let inputs = [c.encryptInput, c.decryptInput, c.handshakeInput, c.inboundInput, c.outboundInput]
        guard Set(inputs).count == inputs.count else {
            throw ConfigurationError(variable: "HALLMARK_GATEWAY_*_INPUT", reason: "every input topic must be different")
        }
        c.schema = try settings.value(Variable.schema)
        c.sessionTTL = TimeInterval(try settings.value(Variable.sessionTTL))
        c.sweepInterval = try settings.value(Variable.sweep)
        c.encryptSchemas = try settings.value(Variable.encryptSchemas)
        c.decryptSchemas = try settings.value(Variable.decryptSchemas)
        c.keys = try SmileIDKeySettings.fromEnvironment(env, prefix: "HALLMARK_GATEWAY_")
        c.timestampWindow = TimeInterval(try settings.value(Variable.window))
        c.policy = try EncryptionPolicy.fromEnvironment(env)
        c.securityTopic = try settings.value(StageConfiguration.Variable.securityTopic)
        c.events = try SecurityEventSettings.fromEnvironment(env, prefix: "HALLMARK_GATEWAY_", subject: "SUBJECT")
        c.operatorKeys = try OperatorKeys.fromEnvironment(env, prefix: "HALLMARK_GATEWAY")
        c.indexKey = try AuditTrail.indexKey(env, prefix: "HALLMARK_GATEWAY")
        c.privacy = try PrivacyTopics.fromEnvironment(env)
        c.auditTopic = try settings.value(ServiceRunner.Variable.auditTopic)
        return c
    }
}
