/// `hallmark.decrypt.result.v1`: the gateway's answer to a decrypt request. Accepted: the
/// decrypted request, a request carrier. Rejected: one reason and neither headers nor body,
/// so it never holds partial plaintext and can never be chained on as a request.
public struct DecryptResult: MessageBody, Hashable {
    public static let schemaName = "hallmark.decrypt.result.v1"

    /// `accepted` or `rejected`.
    public enum Status: String, Codable, Sendable { case accepted, rejected }

    /// Why a request could not be decrypted.
    public enum Reason: String, Codable, Sendable, CaseIterable {
        case authenticationFailed = "authentication_failed"
        case unsupportedVersion = "unsupported_version"
        case malformedEnvelope = "malformed_envelope"
        case missingHeader = "missing_header"
        case staleTimestamp = "stale_timestamp"
        /// The request broke its envelope or schema before it could be read.
        case malformed
        /// Refused by the runtime (DESIGN §2): larger than the limit, an id already used for
        /// other bytes or on another topic, or processing that kept failing.
        case oversized
        case idReused = "id_reused"
        case processingFailed = "processing_failed"
        /// The request was a rejected result (a chain's earlier stage refused it, a verify
        /// stage found a bad MAC): nothing is decrypted.
        case upstreamRejected = "upstream_rejected"
    }

    public var status: Status
    public var reason: Reason?
    public var method: String?
    public var path: String?
    /// The headers without the ENC-1 ones (accepted only).
    public var headers: [String: String]?
    /// The plaintext body, base64 (accepted only).
    public var bodyB64: String?
    /// With `upstream_rejected`: the reason the rejected result given as the request carried.
    public var upstreamReason: String?

    /// An accepted result carrying the decrypted request.
    public init(
        headers: [String: String],
        bodyB64: String, method: String? = nil, path: String? = nil
    ) {
        status = .accepted
        self.headers = headers
        self.bodyB64 = bodyB64
        self.method = method
        self.path = path
    }

    /// A rejected result.
    public init(
        reason: Reason,
        upstreamReason: String? = nil
    ) {
        status = .rejected
        self.reason = reason
        self.upstreamReason = reason == .upstreamRejected ? upstreamReason : nil
    }

    enum CodingKeys: String, CodingKey {
        case status, reason, method, path, headers
        case bodyB64 = "body_b64"
        case upstreamReason = "upstream_reason"
    }
}
