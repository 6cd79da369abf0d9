/// `hallmark.decrypt.request.v1`: a received request for the gateway to decrypt
/// (`smileid.decrypt.requests`), with the ENC-1 headers and envelope as the client sent them.
/// A request carrier.
public struct DecryptRequest: MessageBody, Hashable {
    public static let schemaName = "hallmark.decrypt.request.v1"

    public var method: String?
    public var path: String?
    public var headers: [String: String]
    /// The ENC-1 envelope (or a multipart body with encrypted fields), base64.
    public var bodyB64: String

    public init(
        headers: [String: String], bodyB64: String, method: String? = nil,
        path: String? = nil
    ) {
        self.headers = headers
        self.bodyB64 = bodyB64
        self.method = method
        self.path = path
    }

    enum CodingKeys: String, CodingKey {
        case method, path, headers
        case bodyB64 = "body_b64"
    }
}
