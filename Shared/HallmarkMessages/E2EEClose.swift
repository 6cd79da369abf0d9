/// `hallmark.e2ee.close.v1`: closes an E2EE-1 session (`e2ee.handshakes`, keyed by session
/// id, from the edge that sends handshakes, e.g. when the client disconnects). The gateway
/// deletes the session and its key and answers `closed` on `e2ee.handshake.results`.
public struct E2EEClose: MessageBody, Hashable {
    public static let schemaName = "hallmark.e2ee.close.v1"

    /// The session to close (also the Kafka key).
    public var sessionID: String

    public init(sessionID: String) {
        self.sessionID = sessionID
    }

    enum CodingKeys: String, CodingKey {
        case sessionID = "session_id"
    }
}
