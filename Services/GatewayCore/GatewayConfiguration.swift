import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkRuntime
import HallmarkSmileID

/// The gateway's settings: its own, each declared once in ``settings``, the encryption policy's
/// (``EncryptionPolicy``), and the shared ones it reads through ``SmileIDKeySettings``
/// (`HALLMARK_GATEWAY_SECRETS_DIR`, `…_SECRET_<VERSION>`, `…_SIGNING_VERSION` (it encrypts),
/// `…_WORKERS`, `…_BATCH`, `…_KEY_CACHE_SIZE`, `…_KEY_CACHE_TTL_SECONDS`),
/// ``SecurityEventSettings`` (`HALLMARK_GATEWAY_ALERT_REJECTIONS`, `…_ALERT_WINDOW_SECONDS`,
/// `…_EVENTS_PER_SUBJECT`, `…_EVENTS_PER_WINDOW`, per E2EE-1 session and per ENC-1 partner),
/// the KEKs sealing session keys (`HALLMARK_GATEWAY_KEK_FILE` / `HALLMARK_GATEWAY_KEK`,
/// ``KeyEncryptionFile``), ``OperatorKeys``, the audit index key and ``PrivacyTopics``.
package struct GatewayConfiguration: DeclaredSettings {
    package var encryptInput: String = declared(\.encryptInput)
    package var encryptOutput: String = declared(\.encryptOutput)
    package var decryptInput: String = declared(\.decryptInput)
    package var decryptOutput: String = declared(\.decryptOutput)
    package var handshakeInput: String = declared(\.handshakeInput)
    package var handshakeOutput: String = declared(\.handshakeOutput)
    package var inboundInput: String = declared(\.inboundInput)
    package var plaintextOutput: String = declared(\.plaintextOutput)
    package var outboundInput: String = declared(\.outboundInput)
    package var outboundOutput: String = declared(\.outboundOutput)
    package var schema: String = declared(\.schema)
    package var sessionTTL: TimeInterval = declared(\.sessionTTL)
    package var sweepInterval: Duration = declared(\.sweepInterval)
    package var encryptSchemas: Set<String> = declared(\.encryptSchemas)
    package var decryptSchemas: Set<String> = declared(\.decryptSchemas)
    /// Secrets and PBKDF2 (`HALLMARK_GATEWAY_SECRETS_DIR`, `…_WORKERS`, …).
    package var keys = SmileIDKeySettings(prefix: Self.prefix)
    package var timestampWindow: TimeInterval = declared(\.timestampWindow)
    package var policy = EncryptionPolicy()
    package var securityTopic: String = declared(\.securityTopic)
    /// Operators whose keys may sign privacy requests (`HALLMARK_GATEWAY_OPERATOR_KEYS_FILE` or
    /// `…_OPERATOR_KEYS`). With them and an index key (`HALLMARK_GATEWAY_INDEX_KEY_FILE`, else
    /// the KEK file's `index=` entry), the gateway answers privacy requests about sessions.
    package var operatorKeys = OperatorKeys.none
    /// The audit trail's subject index key, when given on its own.
    package var indexKey: Data?
    /// Privacy request and answer topics (`HALLMARK_PRIVACY_REQUESTS_TOPIC`, `…_RESULTS_TOPIC`).
    package var privacy = PrivacyTopics()
    /// The audit trail's copy (`HALLMARK_AUDIT_TOPIC`).
    package var auditTopic: String = declared(\.auditTopic)
    /// Security event limits, per session and per partner (`HALLMARK_GATEWAY_ALERT_REJECTIONS`, …).
    package var events = SecurityEventSettings()

    package init() {}

    static let prefix = "HALLMARK_GATEWAY_"

    /// Every setting, in the order `hallmark config` lists them.
    package static let settings: [ConfigurationSetting<Self>] = [
        .bind(
            \.encryptInput,
            .topic(
                "HALLMARK_GATEWAY_ENCRYPT_INPUT", default: TopicCatalogue.encryptRequests.name, doc: "encrypt requests consumed")),
        .bind(
            \.encryptOutput,
            .topic(
                "HALLMARK_GATEWAY_ENCRYPT_OUTPUT", default: TopicCatalogue.encryptResults.name, doc: "encrypt results produced")),
        .bind(
            \.decryptInput,
            .topic(
                "HALLMARK_GATEWAY_DECRYPT_INPUT", default: TopicCatalogue.decryptRequests.name, doc: "decrypt requests consumed")),
        .bind(
            \.decryptOutput,
            .topic(
                "HALLMARK_GATEWAY_DECRYPT_OUTPUT", default: TopicCatalogue.decryptResults.name, doc: "decrypt results produced")),
        .bind(
            \.handshakeInput,
            .topic("HALLMARK_GATEWAY_HANDSHAKE_INPUT", default: TopicCatalogue.handshakes.name, doc: "E2EE-1 handshakes consumed")
        ),
        .bind(
            \.handshakeOutput,
            .topic(
                "HALLMARK_GATEWAY_HANDSHAKE_OUTPUT", default: TopicCatalogue.handshakeResults.name,
                doc: "E2EE-1 handshake results")),
        .bind(
            \.inboundInput,
            .topic(
                "HALLMARK_GATEWAY_INBOUND_INPUT", default: TopicCatalogue.inbound.name, doc: "client→gateway messages consumed")),
        .bind(
            \.plaintextOutput,
            .topic(
                "HALLMARK_GATEWAY_PLAINTEXT_OUTPUT", default: TopicCatalogue.plaintext.name,
                doc: "client→gateway messages, decrypted")),
        .bind(
            \.outboundInput,
            .topic(
                "HALLMARK_GATEWAY_OUTBOUND_INPUT", default: TopicCatalogue.outboundRequests.name,
                doc: "gateway→client messages to seal")),
        .bind(
            \.outboundOutput,
            .topic(
                "HALLMARK_GATEWAY_OUTBOUND_OUTPUT", default: TopicCatalogue.outbound.name, doc: "gateway→client messages, sealed")
        ),
        .bind(\.schema, .identifier("HALLMARK_GATEWAY_SCHEMA", default: "gateway", doc: "PostgreSQL schema (sessions, inbox)")),
        .bind(
            \.sessionTTL,
            .integer(
                "HALLMARK_GATEWAY_SESSION_TTL_SECONDS", default: 86_400, in: 1...(366 * 86_400),
                doc: "a session's lifetime from its handshake, in seconds"),
            as: { TimeInterval($0) }),
        .bind(
            \.sweepInterval,
            .seconds(
                "HALLMARK_GATEWAY_SWEEP_SECONDS", default: .seconds(60), in: 1...86_400,
                doc: "how often expired sessions (and their keys) are deleted")),
        .bind(
            \.encryptSchemas,
            .requestCarriers(
                "HALLMARK_GATEWAY_ENCRYPT_SCHEMAS", default: [EncryptRequest.schemaName],
                doc: "request carriers taken on the encrypt input")),
        .bind(
            \.decryptSchemas,
            .requestCarriers(
                "HALLMARK_GATEWAY_DECRYPT_SCHEMAS", default: [DecryptRequest.schemaName],
                doc: "request carriers taken on the decrypt input")),
        .bind(
            \.timestampWindow,
            .integer(
                "HALLMARK_GATEWAY_WINDOW_SECONDS", default: 300, in: 1...(100 * 366 * 86_400),
                doc: "± seconds a decrypted envelope's timestamp may be from now"),
            as: { TimeInterval($0) }),
        .custom(SmileIDKeySettings.Variables(prefix: prefix).all) { c, s throws(ConfigurationError) in
            c.keys = try SmileIDKeySettings.fromEnvironment(s.environment, prefix: prefix)
        },
        .custom(SecurityEventSettings.Variables(prefix: prefix, subject: "SUBJECT").all) { c, s throws(ConfigurationError) in
            c.events = try SecurityEventSettings.fromEnvironment(s.environment, prefix: prefix, subject: "SUBJECT")
        },
        .custom(EncryptionPolicy.Variable.all) { c, s throws(ConfigurationError) in
            c.policy = try EncryptionPolicy.fromEnvironment(s.environment)
        },
        // The KEKs are read by the service when it starts (``GatewayService``).
        .custom(KeyEncryptionFile.variable(prefix: prefix).all) { _, _ in },
        .custom(OperatorKeys.variable(prefix: "HALLMARK_GATEWAY").all) { c, s throws(ConfigurationError) in
            c.operatorKeys = try OperatorKeys.fromEnvironment(s.environment, prefix: "HALLMARK_GATEWAY")
        },
        .custom(AuditTrail.indexKeyVariable(prefix: "HALLMARK_GATEWAY").all) { c, s throws(ConfigurationError) in
            c.indexKey = try AuditTrail.indexKey(s.environment, prefix: "HALLMARK_GATEWAY")
        },
        // Every service reads these; `hallmark config` lists them with the runtime's.
        .shared(\.securityTopic, StageConfiguration.Variable.securityTopic),
        .custom([]) { c, s throws(ConfigurationError) in c.privacy = try PrivacyTopics.fromEnvironment(s.environment) },
        .shared(\.auditTopic, ServiceRunner.Variable.auditTopic),
    ]

    /// Reads the declared settings over the defaults, then checks them together; a malformed
    /// value throws, naming the variable.
    package static func fromEnvironment(_ env: [String: String]) throws(ConfigurationError) -> GatewayConfiguration {
        let c = try GatewayConfiguration().applying(Settings(env))
        guard c.encryptInput != c.decryptInput else {
            throw ConfigurationError(variable: variable(\.decryptInput), reason: "must differ from the encrypt input")
        }
        let inputs = [c.encryptInput, c.decryptInput, c.handshakeInput, c.inboundInput, c.outboundInput]
        guard Set(inputs).count == inputs.count else {
            throw ConfigurationError(variable: "HALLMARK_GATEWAY_*_INPUT", reason: "every input topic must be different")
        }
        return c
    }
}
