import HallmarkCore
import HallmarkCrypto

extension E2EEInbound {
    /// Reads the body from the members intake already parsed and checked against its
    /// schema, without parsing the bytes a second time (an inbound message is the gateway's
    /// most frequent input). Nil when a member is not in the plain form this reader takes;
    /// the caller then decodes the bytes, which accepts and refuses exactly as before.
    public init?(fields f: [String: JSONValue]) {
        guard let sessionID = f["session_id"]?.string, let message = InvisoWireMessage(json: f["message"]) else { return nil }
        self.init(sessionID: sessionID, message: message)
    }
}
