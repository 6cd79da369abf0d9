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

    public var method: String?
    public var path: String?
    /// The request's headers plus `SmileID-Request-Timestamp` and `SmileID-Request-Mac`.
    public var headers: [String: String]
    public var bodyB64: String
    /// The secret version that signed.
    public var secretVersion: String

    public init(
        method: String? = nil,
        path: String? = nil, headers: [String: String], bodyB64: String, secretVersion: String
    ) {
        self.method = method
        self.path = path
        self.headers = headers
        self.bodyB64 = bodyB64
        self.secretVersion = secretVersion
    }

    enum CodingKeys: String, CodingKey {
        case headers, method, path
        case bodyB64 = "body_b64"
        case secretVersion = "secret_version"
    }
}
