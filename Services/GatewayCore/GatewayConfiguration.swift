import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkRuntime
import HallmarkSmileID

/// The gateway's settings, each from a `HALLMARK_GATEWAY_…` variable with a default. The
/// encryption policy has its own file and variables (``EncryptionPolicy``).
///
/// | variable | default | meaning |
/// |---|---|---|
/// | `HALLMARK_GATEWAY_ENCRYPT_INPUT` | `smileid.encrypt.requests` | encrypt requests consumed |
/// | `HALLMARK_GATEWAY_ENCRYPT_OUTPUT` | `smileid.encrypt.results` | encrypt results produced |
/// | `HALLMARK_GATEWAY_DECRYPT_INPUT` | `smileid.decrypt.requests` | decrypt requests consumed |
/// | `HALLMARK_GATEWAY_DECRYPT_OUTPUT` | `smileid.decrypt.results` | decrypt results produced |
/// | `HALLMARK_GATEWAY_HANDSHAKE_INPUT` / `_OUTPUT` | `e2ee.handshakes` / `e2ee.handshake.results` | E2EE-1 handshakes |
/// | `HALLMARK_GATEWAY_INBOUND_INPUT` / `HALLMARK_GATEWAY_PLAINTEXT_OUTPUT` | `e2ee.inbound` / `e2ee.plaintext` | client→gateway messages |
/// | `HALLMARK_GATEWAY_OUTBOUND_INPUT` / `_OUTPUT` | `e2ee.outbound.requests` / `e2ee.outbound` | gateway→client messages |
/// | `HALLMARK_GATEWAY_SCHEMA` | `gateway` | PostgreSQL schema (sessions, inbox) |
/// | `HALLMARK_GATEWAY_KEK_FILE` / `HALLMARK_GATEWAY_KEK` | — | the KEKs sealing session keys (``KeyEncryptionFile``) |
/// | `HALLMARK_GATEWAY_SESSION_TTL_SECONDS` | 86400 | a session's lifetime from its handshake |
/// | `HALLMARK_GATEWAY_SWEEP_SECONDS` | 60 | expired sessions (and their keys) deleted this often |
/// | `HALLMARK_GATEWAY_ENCRYPT_SCHEMAS` | `hallmark.encrypt.request.v1` | request carriers taken on the encrypt input |
/// | `HALLMARK_GATEWAY_DECRYPT_SCHEMAS` | `hallmark.decrypt.request.v1` | request carriers taken on the decrypt input |
/// | `HALLMARK_GATEWAY_SECRETS_DIR`, `…_SECRET_<VERSION>`, `…_SIGNING_VERSION`, `…_WORKERS`, `…_BATCH`, `…_KEY_CACHE_SIZE`, `…_KEY_CACHE_TTL_SECONDS` | see ``SmileIDKeySettings`` | secrets (the signing version encrypts) and PBKDF2 |
/// | `HALLMARK_GATEWAY_WINDOW_SECONDS` | 300 | ± seconds a decrypted envelope's timestamp may be from now |
/// | `HALLMARK_SECURITY_TOPIC` | `hallmark.security` | security events |
/// | `HALLMARK_GATEWAY_ALERT_REJECTIONS`, `…_ALERT_WINDOW_SECONDS`, `…_EVENTS_PER_SUBJECT`, `…_EVENTS_PER_WINDOW` | 20, 60, 10, 200 | security event limits (``SecurityEventSettings``), per E2EE-1 session and per ENC-1 partner |
public struct GatewayConfiguration: Sendable {
    public var encryptInput = "smileid.encrypt.requests"
    public var encryptOutput = "smileid.encrypt.results"
    public var decryptInput = "smileid.decrypt.requests"
    public var decryptOutput = "smileid.decrypt.results"
    public var handshakeInput = "e2ee.handshakes"
    public var handshakeOutput = "e2ee.handshake.results"
    public var inboundInput = "e2ee.inbound"
    public var plaintextOutput = "e2ee.plaintext"
    public var outboundInput = "e2ee.outbound.requests"
    public var outboundOutput = "e2ee.outbound"
    public var schema = "gateway"
    public var sessionTTL: TimeInterval = 86_400
    public var sweepInterval: Duration = .seconds(60)
    public var encryptSchemas: Set<String> = [EncryptRequest.schemaName]
    public var decryptSchemas: Set<String> = [DecryptRequest.schemaName]
    /// Secrets and PBKDF2 (`HALLMARK_GATEWAY_SECRETS_DIR`, `…_WORKERS`, …).
    public var keys = SmileIDKeySettings(prefix: "HALLMARK_GATEWAY_")
    public var timestampWindow: TimeInterval = 300
    public var policy = EncryptionPolicy()
    public var securityTopic = "hallmark.security"
    /// Operators whose keys may sign privacy requests (`HALLMARK_GATEWAY_OPERATOR_KEYS_FILE` or
    /// `…_OPERATOR_KEYS`). With them and an index key (`HALLMARK_GATEWAY_INDEX_KEY_FILE`, else
    /// the KEK file's `index=` entry), the gateway answers privacy requests about sessions.
    public var operatorKeys = OperatorKeys.none
    /// The audit trail's subject index key, when given on its own.
    public var indexKey: Data?
    /// Privacy request and answer topics (`HALLMARK_PRIVACY_REQUESTS_TOPIC`, `…_RESULTS_TOPIC`).
    public var privacy = PrivacyTopics()
    /// The audit trail's copy (`HALLMARK_AUDIT_TOPIC`).
    public var auditTopic = "hallmark.audit"
    /// Security event limits, per session and per partner (`HALLMARK_GATEWAY_ALERT_REJECTIONS`, …).
    public var events = SecurityEventSettings()

    public init() {}

    /// Reads the variables over the defaults; a malformed value throws, naming the variable.
    public static func fromEnvironment(_ env: [String: String]) throws(ConfigurationError) -> GatewayConfiguration {
        let settings = Settings(env)
        var c = GatewayConfiguration()
        c.encryptInput = try settings.topic("HALLMARK_GATEWAY_ENCRYPT_INPUT", default: c.encryptInput)
        c.encryptOutput = try settings.topic("HALLMARK_GATEWAY_ENCRYPT_OUTPUT", default: c.encryptOutput)
        c.decryptInput = try settings.topic("HALLMARK_GATEWAY_DECRYPT_INPUT", default: c.decryptInput)
        c.decryptOutput = try settings.topic("HALLMARK_GATEWAY_DECRYPT_OUTPUT", default: c.decryptOutput)
        guard c.encryptInput != c.decryptInput else {
            throw ConfigurationError(variable: "HALLMARK_GATEWAY_DECRYPT_INPUT", reason: "must differ from the encrypt input")
        }
        c.handshakeInput = try settings.topic("HALLMARK_GATEWAY_HANDSHAKE_INPUT", default: c.handshakeInput)
        c.handshakeOutput = try settings.topic("HALLMARK_GATEWAY_HANDSHAKE_OUTPUT", default: c.handshakeOutput)
        c.inboundInput = try settings.topic("HALLMARK_GATEWAY_INBOUND_INPUT", default: c.inboundInput)
        c.plaintextOutput = try settings.topic("HALLMARK_GATEWAY_PLAINTEXT_OUTPUT", default: c.plaintextOutput)
        c.outboundInput = try settings.topic("HALLMARK_GATEWAY_OUTBOUND_INPUT", default: c.outboundInput)
        c.outboundOutput = try settings.topic("HALLMARK_GATEWAY_OUTBOUND_OUTPUT", default: c.outboundOutput)
        let inputs = [c.encryptInput, c.decryptInput, c.handshakeInput, c.inboundInput, c.outboundInput]
        guard Set(inputs).count == inputs.count else {
            throw ConfigurationError(variable: "HALLMARK_GATEWAY_*_INPUT", reason: "every input topic must be different")
        }
        c.schema = try settings.identifier("HALLMARK_GATEWAY_SCHEMA", default: c.schema)
        c.sessionTTL = TimeInterval(
            try settings.integer(
                "HALLMARK_GATEWAY_SESSION_TTL_SECONDS", default: 86_400,
                in: 1...(366 * 86_400)))
        c.sweepInterval = try settings.seconds("HALLMARK_GATEWAY_SWEEP_SECONDS", default: c.sweepInterval, in: 1...86_400)
        c.encryptSchemas = try settings.requestCarriers("HALLMARK_GATEWAY_ENCRYPT_SCHEMAS", default: c.encryptSchemas)
        c.decryptSchemas = try settings.requestCarriers("HALLMARK_GATEWAY_DECRYPT_SCHEMAS", default: c.decryptSchemas)
        c.keys = try SmileIDKeySettings.fromEnvironment(env, prefix: "HALLMARK_GATEWAY_")
        c.timestampWindow = TimeInterval(
            try settings.integer(
                "HALLMARK_GATEWAY_WINDOW_SECONDS", default: 300,
                in: 1...(100 * 366 * 86_400)))
        c.policy = try EncryptionPolicy.fromEnvironment(env)
        c.securityTopic = try settings.topic("HALLMARK_SECURITY_TOPIC", default: c.securityTopic)
        c.events = try SecurityEventSettings.fromEnvironment(env, prefix: "HALLMARK_GATEWAY_", subject: "SUBJECT")
        c.operatorKeys = try OperatorKeys.fromEnvironment(env, prefix: "HALLMARK_GATEWAY")
        c.indexKey = try AuditTrail.indexKey(env, prefix: "HALLMARK_GATEWAY")
        c.privacy = try PrivacyTopics.fromEnvironment(env)
        c.auditTopic = try settings.topic("HALLMARK_AUDIT_TOPIC", default: c.auditTopic)
        return c
    }
}
