/// `hallmark.encrypt.request.v1`: a request for the gateway to encrypt with ENC-1
/// (`smileid.encrypt.requests`). A request carrier: optional `method` and `path`, `headers`,
/// `body_b64`; `Content-Type` picks JSON, ZIP or multipart.
public struct EncryptRequest: MessageBody, Hashable {
    public static let schemaName = "hallmark.encrypt.request.v1"

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
        headers: [String: String], bodyB64: String, method: String? = nil,
        path: String? = nil, timestamp: String? = nil
    ) {
        self.headers = headers
        self.bodyB64 = bodyB64
        self.method = method
        self.path = path
        self.timestamp = timestamp
    }

    enum CodingKeys: String, CodingKey {
        case method, path, headers, timestamp
        case bodyB64 = "body_b64"
    }
}
