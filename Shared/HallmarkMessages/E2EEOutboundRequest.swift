/// `hallmark.e2ee.outbound.request.v1`: a gateway-to-client message to encrypt
/// (`e2ee.outbound.requests`, keyed by session id); the gateway allocates its counter.
public struct E2EEOutboundRequest: HallmarkMessage, Hashable {
    public static let schemaName = "hallmark.e2ee.outbound.request.v1"

    public var schema = E2EEOutboundRequest.schemaName
    public var id: String
    public var producedAt: String
    public var correlationID: String?
    public var replyTo: String?
    public var sessionID: String
    /// The plaintext, base64.
    public var plaintextB64: String

    public init(
        id: String, producedAt: String, sessionID: String, plaintextB64: String,
        correlationID: String? = nil, replyTo: String? = nil
    ) {
        self.id = id
        self.producedAt = producedAt
        self.sessionID = sessionID
        self.plaintextB64 = plaintextB64
        self.correlationID = correlationID
        self.replyTo = replyTo
    }

    enum CodingKeys: String, CodingKey {
        case schema, id
        case producedAt = "produced_at"
        case correlationID = "correlation_id"
        case replyTo = "reply_to"
        case sessionID = "session_id"
        case plaintextB64 = "plaintext_b64"
    }
}
