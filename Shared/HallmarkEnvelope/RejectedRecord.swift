/// A message a stage could not process, as published to `hallmark.rejected`
/// (schema `hallmark.rejected.v1`). Nothing is dropped: the original bytes travel along.
public struct RejectedRecord: Codable, Sendable, Equatable {
    public static let schemaName = "hallmark.rejected.v1"

    /// Where the rejected message was read.
    public struct Source: Codable, Sendable, Equatable {
        public var topic: String
        public var partition: Int32
        public var offset: Int64
        public init(topic: String, partition: Int32, offset: Int64) {
            self.topic = topic
            self.partition = partition
            self.offset = offset
        }
    }

    public var schema: String = RejectedRecord.schemaName
    public var id: String
    public var producedAt: String
    public var service: String
    public var instance: String
    public var reason: RejectionReason
    /// What was wrong, naming fields but never their values.
    public var detail: String
    public var source: Source
    /// The message's own `id`, when it had a readable one.
    public var originalID: String?
    public var originalB64: String

    public init(id: String, producedAt: String, service: String, instance: String, reason: RejectionReason,
                detail: String, source: Source, originalID: String?, originalB64: String) {
        self.id = id
        self.producedAt = producedAt
        self.service = service
        self.instance = instance
        self.reason = reason
        self.detail = detail
        self.source = source
        self.originalID = originalID
        self.originalB64 = originalB64
    }

    enum CodingKeys: String, CodingKey {
        case schema, id, service, instance, reason, detail, source
        case producedAt = "produced_at"
        case originalID = "original_id"
        case originalB64 = "original_b64"
    }
}
