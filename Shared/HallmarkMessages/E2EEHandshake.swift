/// `hallmark.e2ee.handshake.v1`: an E2EE-1 handshake (`e2ee.handshakes`, keyed by session
/// id): the client's X25519 public key for a new session.
public struct E2EEHandshake: MessageBody, Hashable {
    public static let schemaName = "hallmark.e2ee.handshake.v1"

    /// The session id (also the Kafka key).
    public var sessionID: String
    /// The client's X25519 public key, base64 (32 bytes).
    public var clientPublicKey: String

    public init(
        sessionID: String, clientPublicKey: String
    ) {
        self.sessionID = sessionID
        self.clientPublicKey = clientPublicKey
    }

    enum CodingKeys: String, CodingKey {
        case sessionID = "session_id"
        case clientPublicKey = "client_public_key"
    }
}
