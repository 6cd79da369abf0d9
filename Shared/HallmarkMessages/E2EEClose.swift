/// `hallmark.e2ee.close.v1`: closes an E2EE-1 session (`e2ee.handshakes`, keyed by session
/// id, from the edge that sends handshakes, e.g. when the client disconnects). The gateway
/// deletes the session and its key and answers `closed` on `e2ee.handshake.results`.
public struct E2EEClose: HallmarkMessage, Hashable {
    public static let schemaName = "hallmark.e2ee.close.v1"

    public var schema = E2EEClose.schemaName
    public var id: String
    public var producedAt: String
    public var correlationID: String?
    public var replyTo: String?
    /// The session to close (also the Kafka key).
    public var sessionID: String

    public init(id: String, producedAt: String, sessionID: String, correlationID: String? = nil, replyTo: String? = nil) {
        self.id = id
        self.producedAt = producedAt
        self.sessionID = sessionID
        self.correlationID = correlationID
        self.replyTo = replyTo
    }

    enum CodingKeys: String, CodingKey {
        case schema, id
        case producedAt = "produced_at"
        case correlationID = "correlation_id"
        case replyTo = "reply_to"
        case sessionID = "session_id"
    }
}
