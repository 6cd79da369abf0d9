/// `hallmark.encrypt.request.v1`: a request for the gateway to encrypt with ENC-1
/// (`smileid.encrypt.requests`). A request carrier: optional `method` and `path`, `headers`,
/// `body_b64`; `Content-Type` picks JSON, ZIP or multipart.
public struct EncryptRequest: HallmarkMessage, Hashable {
    public static let schemaName = "hallmark.encrypt.request.v1"

    public var schema = EncryptRequest.schemaName
    public var id: String
    public var producedAt: String
    public var correlationID: String?
    public var replyTo: String?
    /// The HTTP method, passed through to the result.
    public var method: String?
    /// The HTTP path; the policy's excluded paths match it.
    public var path: String?
    /// Request headers; `Content-Type` decides what is encrypted.
    public var headers: [String: String]
    /// The body, base64 (empty for none).
    public var bodyB64: String
    /// The `SmileID-Request-Timestamp` to use when the headers carry none; absent → now.
    public var timestamp: String?

    public init(
        id: String, producedAt: String, headers: [String: String], bodyB64: String, method: String? = nil,
        path: String? = nil, timestamp: String? = nil, correlationID: String? = nil, replyTo: String? = nil
    ) {
        self.id = id
        self.producedAt = producedAt
        self.headers = headers
        self.bodyB64 = bodyB64
        self.method = method
        self.path = path
        self.timestamp = timestamp
        self.correlationID = correlationID
        self.replyTo = replyTo
    }

    enum CodingKeys: String, CodingKey {
        case schema, id, method, path, headers, timestamp
        case producedAt = "produced_at"
        case correlationID = "correlation_id"
        case replyTo = "reply_to"
        case bodyB64 = "body_b64"
    }
}
