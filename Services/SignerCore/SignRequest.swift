/// `hallmark.sign.request.v1`: a request to sign (DESIGN §2).
public struct SignRequest: Codable, Sendable, Equatable {
    public static let schemaName = "hallmark.sign.request.v1"

    public var schema = SignRequest.schemaName
    public var id: String
    public var producedAt: String
    public var correlationID: String?
    /// Request headers; `SmileID-Request-Timestamp` is kept when present.
    public var headers: [String: String]
    /// The body, base64 (empty for none).
    public var bodyB64: String
    /// The timestamp to sign with when the headers carry none; absent → now.
    public var timestamp: String?

    public init(id: String, producedAt: String, headers: [String: String], bodyB64: String,
                timestamp: String? = nil, correlationID: String? = nil) {
        self.id = id
        self.producedAt = producedAt
        self.headers = headers
        self.bodyB64 = bodyB64
        self.timestamp = timestamp
        self.correlationID = correlationID
    }

    enum CodingKeys: String, CodingKey {
        case schema, id, headers, timestamp
        case producedAt = "produced_at"
        case correlationID = "correlation_id"
        case bodyB64 = "body_b64"
    }
}
