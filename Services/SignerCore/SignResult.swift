/// `hallmark.sign.result.v1`: the signed request, ready to send or to feed a verify stage.
public struct SignResult: Codable, Sendable, Equatable {
    public static let schemaName = "hallmark.sign.result.v1"

    public var schema = SignResult.schemaName
    public var id: String
    public var producedAt: String
    public var correlationID: String
    /// The sign request's id.
    public var requestID: String
    /// The request's headers plus `SmileID-Request-Timestamp` and `SmileID-Request-Mac`.
    public var headers: [String: String]
    public var bodyB64: String
    /// The secret version that signed.
    public var secretVersion: String

    enum CodingKeys: String, CodingKey {
        case schema, id, headers
        case producedAt = "produced_at"
        case correlationID = "correlation_id"
        case requestID = "request_id"
        case bodyB64 = "body_b64"
        case secretVersion = "secret_version"
    }
}
