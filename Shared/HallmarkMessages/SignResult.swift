/// `hallmark.sign.result.v1`: the signed request, ready to send or to feed a verify stage
/// (a request carrier: `method`, `path`, `headers`, `body_b64`).
public struct SignResult: RejectableResult, Equatable {
    public static let schemaName = "hallmark.sign.result.v1"

    /// Why a sign request was refused (the rejected form's `reason`).
    public enum RejectionReason: String, CarrierRejectionReason {
        case malformed, oversized
        case idReused = "id_reused"
        case processingFailed = "processing_failed"
        /// The request was itself a rejected result; `upstream_reason` carries its cause.
        case upstreamRejected = "upstream_rejected"
    }

    public var schema = SignResult.schemaName
    public var id: String
    public var producedAt: String
    /// The request's `correlation_id`, or its `id` when it had none.
    public var correlationID: String
    /// The sign request's id.
    public var requestID: String
    public var method: String?
    public var path: String?
    /// The request's headers plus `SmileID-Request-Timestamp` and `SmileID-Request-Mac`.
    public var headers: [String: String]
    public var bodyB64: String
    /// The secret version that signed.
    public var secretVersion: String

    public init(
        id: String, producedAt: String, correlationID: String, requestID: String, method: String? = nil,
        path: String? = nil, headers: [String: String], bodyB64: String, secretVersion: String
    ) {
        self.id = id
        self.producedAt = producedAt
        self.correlationID = correlationID
        self.requestID = requestID
        self.method = method
        self.path = path
        self.headers = headers
        self.bodyB64 = bodyB64
        self.secretVersion = secretVersion
    }

    enum CodingKeys: String, CodingKey {
        case schema, id, headers, method, path
        case producedAt = "produced_at"
        case correlationID = "correlation_id"
        case requestID = "request_id"
        case bodyB64 = "body_b64"
        case secretVersion = "secret_version"
    }
}
