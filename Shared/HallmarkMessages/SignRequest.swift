/// `hallmark.sign.request.v1`: a request to sign with SIGN-1 (DESIGN §2). A request carrier:
/// `method`, `path`, `headers`, `body_b64`.
public struct SignRequest: MessageBody, Equatable {
    public static let schemaName = "hallmark.sign.request.v1"

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
        headers: [String: String], bodyB64: String,
        timestamp: String? = nil, method: String? = nil, path: String? = nil
    ) {
        self.headers = headers
        self.bodyB64 = bodyB64
        self.timestamp = timestamp
        self.method = method
        self.path = path
    }

    enum CodingKeys: String, CodingKey {
        case headers, timestamp, method, path
        case bodyB64 = "body_b64"
    }
}
