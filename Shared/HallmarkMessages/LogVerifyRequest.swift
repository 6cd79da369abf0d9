/// `hallmark.log.verify.request.v1`: a question to the transparency log
/// (`birthmark.verify.requests`): was this image hash logged (``Query/inclusion``), or is the
/// log at `new_tree_size` (the latest when absent) an extension of the log at
/// `old_tree_size` (``Query/consistency``)?
public struct LogVerifyRequest: HallmarkMessage, Hashable {
    public static let schemaName = "hallmark.log.verify.request.v1"

    /// What is asked.
    public enum Query: String, Codable, Sendable { case inclusion, consistency }

    public var schema = LogVerifyRequest.schemaName
    public var id: String
    public var producedAt: String
    public var correlationID: String?
    public var replyTo: String?
    public var query: Query
    /// The image's SHA-256, hex (inclusion).
    public var imageHash: String?
    /// The size of the checkpoint the asker holds (consistency).
    public var oldTreeSize: UInt64?
    /// The size to prove against; nil for the latest (consistency).
    public var newTreeSize: UInt64?

    /// An inclusion query.
    public init(id: String, producedAt: String, imageHash: String, correlationID: String? = nil, replyTo: String? = nil) {
        self.id = id
        self.producedAt = producedAt
        query = .inclusion
        self.imageHash = imageHash
        self.correlationID = correlationID
        self.replyTo = replyTo
    }

    /// A consistency query.
    public init(
        id: String, producedAt: String, oldTreeSize: UInt64, newTreeSize: UInt64? = nil,
        correlationID: String? = nil, replyTo: String? = nil
    ) {
        self.id = id
        self.producedAt = producedAt
        query = .consistency
        self.oldTreeSize = oldTreeSize
        self.newTreeSize = newTreeSize
        self.correlationID = correlationID
        self.replyTo = replyTo
    }

    enum CodingKeys: String, CodingKey {
        case schema, id, query
        case producedAt = "produced_at"
        case correlationID = "correlation_id"
        case replyTo = "reply_to"
        case imageHash = "image_hash"
        case oldTreeSize = "old_tree_size"
        case newTreeSize = "new_tree_size"
    }
}
