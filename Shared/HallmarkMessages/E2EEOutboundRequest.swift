/// `hallmark.e2ee.outbound.request.v1`: a gateway-to-client message to encrypt
/// (`e2ee.outbound.requests`, keyed by session id); the gateway allocates its counter.
public struct E2EEOutboundRequest: MessageBody, Hashable {
    public static let schemaName = "hallmark.e2ee.outbound.request.v1"

    public var sessionID: String
    /// The plaintext, base64.
    public var plaintextB64: String

    public init(
        sessionID: String, plaintextB64: String
    ) {
        self.sessionID = sessionID
        self.plaintextB64 = plaintextB64
    }

    enum CodingKeys: String, CodingKey {
        case sessionID = "session_id"
        case plaintextB64 = "plaintext_b64"
    }
}
