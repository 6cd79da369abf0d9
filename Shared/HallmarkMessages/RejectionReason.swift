/// The reason code a rejected message carries to `hallmark.rejected`.
///
/// Stages add their own codes with `RejectionReason("…")`; these are the runtime's.
public struct RejectionReason: Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
    public var description: String { rawValue }

    /// Not UTF-8 JSON, or not an object.
    public static let invalidJSON = RejectionReason("invalid_json")
    /// `schema`, `id` or `produced_at` missing or malformed.
    public static let invalidEnvelope = RejectionReason("invalid_envelope")
    /// A schema this stage does not take.
    public static let unknownSchema = RejectionReason("unknown_schema")
    /// The envelope is fine but the body breaks the schema.
    public static let schemaViolation = RejectionReason("schema_violation")
    /// Larger than the stage's message limit.
    public static let oversized = RejectionReason("oversized")
    /// Processing kept failing with an unexpected error.
    public static let processingFailed = RejectionReason("processing_failed")
    /// The message's `id` was already used for other bytes or on another topic of the service:
    /// not a redelivery (DESIGN §2, ids).
    public static let idReused = RejectionReason("id_reused")
    /// A redelivery whose first answer was already forgotten (`HALLMARK_INBOX_ANSWER_RETENTION_HOURS`):
    /// its effects are not applied again, and it is not answered again.
    public static let answerExpired = RejectionReason("answer_expired")
}
