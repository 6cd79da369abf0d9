/// `hallmark.log.verify.request.v1`: a question to the transparency log
/// (`birthmark.verify.requests`): was this image hash logged (``Query/inclusion``), or is the
/// log at `new_tree_size` (the latest when absent) an extension of the log at
/// `old_tree_size` (``Query/consistency``)? Where does this image come from
/// (``Query/provenance``: attested links from the log, claimed ones from editors)?
public struct LogVerifyRequest: MessageBody, Hashable {
    public static let schemaName = "hallmark.log.verify.request.v1"

    /// What is asked.
    public enum Query: String, Codable, Sendable { case inclusion, consistency, provenance }

    public var query: Query
    /// The image's SHA-256, hex (inclusion).
    public var imageHash: String?
    /// The size of the checkpoint the asker holds (consistency).
    public var oldTreeSize: UInt64?
    /// The size to prove against; nil for the latest (consistency).
    public var newTreeSize: UInt64?

    /// An inclusion query.
    public init(imageHash: String) {
        query = .inclusion
        self.imageHash = imageHash
    }

    /// A provenance query.
    public init(provenanceOf imageHash: String) {
        query = .provenance
        self.imageHash = imageHash
    }

    /// A consistency query.
    public init(
        oldTreeSize: UInt64, newTreeSize: UInt64? = nil
    ) {
        query = .consistency
        self.oldTreeSize = oldTreeSize
        self.newTreeSize = newTreeSize
    }

    enum CodingKeys: String, CodingKey {
        case query
        case imageHash = "image_hash"
        case oldTreeSize = "old_tree_size"
        case newTreeSize = "new_tree_size"
    }
}
