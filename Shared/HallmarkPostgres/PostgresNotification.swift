/// One `NOTIFY` heard by a listening connection (``PostgresListener``).
public struct PostgresNotification: Sendable, Hashable {
    /// The channel it was sent on.
    public let channel: String
    /// Its payload (empty when none was given).
    public let payload: String

    public init(channel: String, payload: String) {
        self.channel = channel
        self.payload = payload
    }
}
