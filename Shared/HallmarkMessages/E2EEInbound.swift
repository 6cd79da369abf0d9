import HallmarkCrypto

/// `hallmark.e2ee.inbound.v1`: a client-to-gateway E2EE-1 message (`e2ee.inbound`, keyed by
/// session id): the session and the wire message exactly as the client sent it.
public struct E2EEInbound: HallmarkMessage, Hashable {
    public static let schemaName = "hallmark.e2ee.inbound.v1"

    public var schema = E2EEInbound.schemaName
    public var id: String
    public var producedAt: String
    public var correlationID: String?
    public var replyTo: String?
    public var sessionID: String
    /// The wire message `{"version","counter","nonce","ciphertext","tag"}`.
    public var message: InvisoWireMessage

    public init(
        id: String, producedAt: String, sessionID: String, message: InvisoWireMessage,
        correlationID: String? = nil, replyTo: String? = nil
    ) {
        self.id = id
        self.producedAt = producedAt
        self.sessionID = sessionID
        self.message = message
        self.correlationID = correlationID
        self.replyTo = replyTo
    }

    enum CodingKeys: String, CodingKey {
        case schema, id, message
        case producedAt = "produced_at"
        case correlationID = "correlation_id"
        case replyTo = "reply_to"
        case sessionID = "session_id"
    }
}
