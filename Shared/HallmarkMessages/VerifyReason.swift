/// Why a verify request was rejected (DESIGN §2); each has its own metric.
public enum VerifyReason: String, Sendable, CaseIterable, Codable {
    case badMAC = "bad_mac"
    case missingHeader = "missing_header"
    case staleTimestamp = "stale_timestamp"
    case futureTimestamp = "future_timestamp"
    case replay
    case malformed
    /// Refused by the runtime (DESIGN §2): larger than the limit, an id already used for
    /// other bytes or on another topic, or processing that kept failing.
    case oversized
    case idReused = "id_reused"
    /// The request was a rejected result (a chain's earlier stage refused it): nothing to verify.
    case upstreamRejected = "upstream_rejected"
    case processingFailed = "processing_failed"
}
