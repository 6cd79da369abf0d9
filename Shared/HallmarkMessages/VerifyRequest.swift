/// `hallmark.verify.request.v1`: a received request whose MAC is to be checked (a request
/// carrier).
public struct VerifyRequest: HallmarkMessage, Equatable {
    public static let schemaName = "hallmark.verify.request.v1"

    public var schema = VerifyRequest.schemaName
    public var id: String
    public var producedAt: String
    public var correlationID: String?
    public var replyTo: String?
    public var method: String
    public var path: String
    public var headers: [String: String]
    /// The body, base64 (empty for none); a zip upload is verified by its `security_info.json`.
    public var bodyB64: String

    public init(
        id: String, producedAt: String, method: String, path: String, headers: [String: String],
        bodyB64: String, correlationID: String? = nil, replyTo: String? = nil
    ) {
        self.id = id
        self.producedAt = producedAt
        self.method = method
        self.path = path
        self.headers = headers
        self.bodyB64 = bodyB64
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
