/// `hallmark.verify.result.v1`: one verdict per verify request, with the request itself (an
/// accepted result is a request carrier the next stage can take).
public struct VerifyResult: MessageBody, Equatable {
    public static let schemaName = "hallmark.verify.result.v1"

    /// `accepted` or `rejected`.
    public var verdict: String
    /// Why it was rejected (see ``VerifyReason``); absent when accepted.
    public var reason: String?
    /// The version that reproduced the MAC; only when accepted.
    public var secretVersion: String?
    /// The request's method and path, when it had them.
    public var method: String?
    public var path: String?
    public var headers: [String: String]
    public var bodyB64: String
    /// With `upstream_rejected`: the reason the rejected result given as the request carried.
    public var upstreamReason: String?

    public init(
        reason: VerifyReason?,
        secretVersion: String?, method: String?, path: String?, headers: [String: String], bodyB64: String,
        upstreamReason: String? = nil
    ) {
        self.verdict = reason == nil ? "accepted" : "rejected"
        self.reason = reason?.rawValue
        self.secretVersion = reason == nil ? secretVersion : nil
        self.method = method
        self.path = path
        self.headers = headers
        self.bodyB64 = bodyB64
        self.upstreamReason = reason == .upstreamRejected ? upstreamReason : nil
    }

    enum CodingKeys: String, CodingKey {
        case verdict, reason, method, path, headers
        case secretVersion = "secret_version"
        case bodyB64 = "body_b64"
        case upstreamReason = "upstream_reason"
    }
}
