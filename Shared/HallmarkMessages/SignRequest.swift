/// `hallmark.sign.request.v1`: a request to sign with SIGN-1 (DESIGN §2). A request carrier:
/// `method`, `path`, `headers`, `body_b64`.
public struct SignRequest: HallmarkMessage, Equatable {
    public static let schemaName = "hallmark.sign.request.v1"

    public var schema = SignRequest.schemaName
    public var id: String
    public var producedAt: String
    public var correlationID: String?
    public var replyTo: String?
    /// The HTTP method, passed through to the result (optional).
    public var method: String?
    /// The HTTP path, passed through to the result (optional).
    public var path: String?
    /// Request headers; `SmileID-Request-Timestamp` is kept when present.
    public var headers: [String: String]
    /// The body, base64 (empty for none).
    public var bodyB64: String
    /// The timestamp to sign with when the headers carry none; absent → now.
    public var timestamp: String?

    public init(
        id: String, producedAt: String, headers: [String: String], bodyB64: String,
        timestamp: String? = nil, method: String? = nil, path: String? = nil,
        correlationID: String? = nil, replyTo: String? = nil
    ) {
        self.id = id
        self.producedAt = producedAt
        self.headers = headers
        self.bodyB64 = bodyB64
        self.timestamp = timestamp
        self.method = method
        self.path = path
        self.correlationID = correlationID
        self.replyTo = replyTo
    }

    enum CodingKeys: String, CodingKey {
        case schema, id, headers, timestamp, method, path
        case producedAt = "produced_at"
        case correlationID = "correlation_id"
        case replyTo = "reply_to"
        case bodyB64 = "body_b64"
    }
}
