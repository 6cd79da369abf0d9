/// `hallmark.verify.request.v1`: a received request whose MAC is to be checked (a request
/// carrier).
public struct VerifyRequest: MessageBody, Equatable {
    public static let schemaName = "hallmark.verify.request.v1"

    public var method: String
    public var path: String
    public var headers: [String: String]
    /// The body, base64 (empty for none); a zip upload is verified by its `security_info.json`.
    public var bodyB64: String

    public init(
        method: String, path: String, headers: [String: String],
        bodyB64: String
    ) {
        self.method = method
        self.path = path
        self.headers = headers
        self.bodyB64 = bodyB64
    }

    enum CodingKeys: String, CodingKey {
        case method, path, headers
        case bodyB64 = "body_b64"
    }
}
