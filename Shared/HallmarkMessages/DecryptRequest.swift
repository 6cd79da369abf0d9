/// `hallmark.decrypt.request.v1`: a received request for the gateway to decrypt
/// (`smileid.decrypt.requests`), with the ENC-1 headers and envelope as the client sent them.
/// A request carrier.
public struct DecryptRequest: HallmarkMessage, Hashable {
    public static let schemaName = "hallmark.decrypt.request.v1"

    public var schema = DecryptRequest.schemaName
    public var id: String
    public var producedAt: String
    public var correlationID: String?
    public var replyTo: String?
    public var method: String?
    public var path: String?
    public var headers: [String: String]
    /// The ENC-1 envelope (or a multipart body with encrypted fields), base64.
    public var bodyB64: String

    public init(
        id: String, producedAt: String, headers: [String: String], bodyB64: String, method: String? = nil,
        path: String? = nil, correlationID: String? = nil, replyTo: String? = nil
    ) {
        self.id = id
        self.producedAt = producedAt
        self.headers = headers
        self.bodyB64 = bodyB64
        self.method = method
        self.path = path
        self.correlationID = correlationID
        self.replyTo = replyTo
    }

    enum CodingKeys: String, CodingKey {
        case schema, id, method, path, headers
        case producedAt = "produced_at"
        case correlationID = "correlation_id"
        case replyTo = "reply_to"
        case bodyB64 = "body_b64"
    }
}
