import HallmarkCore
import HallmarkCrypto

extension E2EEInbound {
    /// Reads the message from the members intake already parsed and checked against its
    /// schema, without parsing the bytes a second time (an inbound message is the gateway's
    /// most frequent input). Nil when a member is not in the plain form this reader takes;
    /// the caller then decodes the bytes, which accepts and refuses exactly as before.
    public init?(fields f: [String: JSONValue]) {
        guard let schema = f["schema"]?.string, let id = f["id"]?.string, let producedAt = f["produced_at"]?.string,
            let sessionID = f["session_id"]?.string, let message = InvisoWireMessage(json: f["message"]),
            let correlationID = JSONValue.optionalString(f["correlation_id"]),
            let replyTo = JSONValue.optionalString(f["reply_to"])
        else { return nil }
        self.init(
            id: id, producedAt: producedAt, sessionID: sessionID, message: message,
            correlationID: correlationID ?? nil, replyTo: replyTo ?? nil)
        self.schema = schema
    }
}
