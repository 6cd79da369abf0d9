/// `hallmark.e2ee.handshake.result.v1`: the gateway's answer to a handshake: its ephemeral
/// public key and the session's expiry, or one reason it refused.
public struct E2EEHandshakeResult: MessageBody, Hashable {
    public static let schemaName = "hallmark.e2ee.handshake.result.v1"

    /// `key_exchange_complete` or `rejected`.
    public enum Status: String, Codable, Sendable {
        case keyExchangeComplete = "key_exchange_complete"
        /// The answer to ``E2EEClose``: the session and its key are deleted.
        case closed
        case rejected
    }

    /// Why a handshake was refused.
    public enum Reason: String, Codable, Sendable, CaseIterable {
        /// Not a usable X25519 public key.
        case invalidPublicKey = "invalid_public_key"
        /// The shared secret is all zero.
        case weakKey = "weak_key"
        /// The session id names a live session.
        case sessionInUse = "session_in_use"
        case malformed
        /// Refused by the runtime (DESIGN §2): larger than the limit, an id already used for
        /// other bytes or on another topic, or processing that kept failing.
        case oversized
        case idReused = "id_reused"
        case processingFailed = "processing_failed"
    }

    public var sessionID: String
    public var status: Status
    /// The gateway's ephemeral X25519 public key, base64 (complete only).
    public var gatewayPublicKey: String?
    /// When the session expires unless closed earlier (complete only).
    public var expiresAt: String?
    public var reason: Reason?

    /// A completed key exchange.
    public init(
        sessionID: String,
        gatewayPublicKey: String, expiresAt: String
    ) {
        self.sessionID = sessionID
        status = .keyExchangeComplete
        self.gatewayPublicKey = gatewayPublicKey
        self.expiresAt = expiresAt
    }

    /// A refused handshake.
    public init(
        sessionID: String,
        reason: Reason
    ) {
        self.sessionID = sessionID
        status = .rejected
        self.reason = reason
    }

    /// A closed session (the answer to ``E2EEClose``).
    public init(closedSessionID: String) {
        sessionID = closedSessionID
        status = .closed
    }

    enum CodingKeys: String, CodingKey {
        case status, reason
        case sessionID = "session_id"
        case gatewayPublicKey = "gateway_public_key"
        case expiresAt = "expires_at"
    }
}
