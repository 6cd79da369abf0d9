import HallmarkCrypto

/// `hallmark.e2ee.inbound.v1`: a client-to-gateway E2EE-1 message (`e2ee.inbound`, keyed by
/// session id): the session and the wire message exactly as the client sent it.
public struct E2EEInbound: MessageBody, Hashable {
    public static let schemaName = "hallmark.e2ee.inbound.v1"

    public var sessionID: String
    /// The wire message `{"version","counter","nonce","ciphertext","tag"}`.
    public var message: InvisoWireMessage

    public init(
        sessionID: String, message: InvisoWireMessage
    ) {
        self.sessionID = sessionID
        self.message = message
    }

    enum CodingKeys: String, CodingKey {
        case message
        case sessionID = "session_id"
    }
}
