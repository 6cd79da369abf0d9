/// `hallmark.e2ee.handshake.v1`: an E2EE-1 handshake (`e2ee.handshakes`, keyed by session
/// id): the client's X25519 public key for a new session.
public struct E2EEHandshake: HallmarkMessage, Hashable {
    public static let schemaName = "hallmark.e2ee.handshake.v1"

    public var schema = E2EEHandshake.schemaName
    public var id: String
    public var producedAt: String
    public var correlationID: String?
    public var replyTo: String?
    /// The session id (also the Kafka key).
    public var sessionID: String
    /// The client's X25519 public key, base64 (32 bytes).
    public var clientPublicKey: String

    public init(
        id: String, producedAt: String, sessionID: String, clientPublicKey: String,
        correlationID: String? = nil, replyTo: String? = nil
    ) {
        self.id = id
        self.producedAt = producedAt
        self.sessionID = sessionID
        self.clientPublicKey = clientPublicKey
        self.correlationID = correlationID
        self.replyTo = replyTo
    }

    enum CodingKeys: String, CodingKey {
        case schema, id
        case producedAt = "produced_at"
        case correlationID = "correlation_id"
        case replyTo = "reply_to"
        case sessionID = "session_id"
        case clientPublicKey = "client_public_key"
    }
}
