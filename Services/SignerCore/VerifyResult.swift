/// `hallmark.verify.result.v1`: one verdict per verify request.
public struct VerifyResult: Codable, Sendable, Equatable {
    public static let schemaName = "hallmark.verify.result.v1"

    public var schema = VerifyResult.schemaName
    public var id: String
    public var producedAt: String
    public var correlationID: String
    public var requestID: String
    /// `accepted` or `rejected`.
    public var verdict: String
    /// Why it was rejected (see ``VerifyReason``); absent when accepted.
    public var reason: String?
    /// The version that reproduced the MAC; only when accepted.
    public var secretVersion: String?
    public var method: String
    public var path: String
    public var headers: [String: String]
    public var bodyB64: String

    enum CodingKeys: String, CodingKey {
        case schema, id, verdict, reason, method, path, headers
        case producedAt = "produced_at"
        case correlationID = "correlation_id"
        case requestID = "request_id"
        case secretVersion = "secret_version"
        case bodyB64 = "body_b64"
    }
}
