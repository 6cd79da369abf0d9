/// `hallmark.security.event.v1` on `hallmark.security`: one partner's rejections passed the
/// configured rate. Carries counts and reason codes only, never request contents.
public struct SecurityEvent: Codable, Sendable, Equatable {
    public static let schemaName = "hallmark.security.event.v1"

    public var schema = SecurityEvent.schemaName
    public var id: String
    public var producedAt: String
    public var service = "signer"
    public var instance: String
    /// `signer.rejection_rate`.
    public var kind = "signer.rejection_rate"
    public var partnerID: String
    /// Rejections seen in the window, including the one that raised the event.
    public var rejections: Int
    public var windowSeconds: Int
    /// The reason of the rejection that raised the event.
    public var lastReason: String

    enum CodingKeys: String, CodingKey {
        case schema, id, service, instance, kind, rejections
        case producedAt = "produced_at"
        case partnerID = "partner_id"
        case windowSeconds = "window_seconds"
        case lastReason = "last_reason"
    }
}
