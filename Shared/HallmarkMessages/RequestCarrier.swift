/// The shape every message that carries a request onward shares (DESIGN §2): sign and verify
/// requests, sign results, encrypt and decrypt requests and results, accepted verify results.
/// A stage that takes requests reads any of them as this, so stages chain by configuration
/// alone (raw payload → gateway encrypt → signer sign → verify).
public struct RequestCarrier: Decodable, Sendable, Equatable {
    /// The HTTP method, when the carrier has one.
    public var method: String?
    /// The HTTP path, when the carrier has one.
    public var path: String?
    /// The request headers, name to value.
    public var headers: [String: String]
    /// The body, base64 (empty for none).
    public var bodyB64: String

    public init(method: String?, path: String?, headers: [String: String], bodyB64: String) {
        self.method = method
        self.path = path
        self.headers = headers
        self.bodyB64 = bodyB64
    }

    /// Schemas that are request carriers (a rejected decrypt result carries no request, so it
    /// does not decode as one).
    public static let schemas: Set<String> = [
        SignRequest.schemaName, SignResult.schemaName, VerifyRequest.schemaName, VerifyResult.schemaName,
        EncryptRequest.schemaName, EncryptResult.schemaName, DecryptRequest.schemaName, DecryptResult.schemaName,
    ]

    enum CodingKeys: String, CodingKey {
        case method, path, headers
        case bodyB64 = "body_b64"
    }
}
