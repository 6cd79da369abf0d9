import HallmarkCore

extension E2EEOutboundRequest {
    /// Reads the request from the members intake already parsed, as
    /// ``E2EEInbound/init(fields:)`` does; nil sends the caller to the full decoder.
    public init?(fields f: [String: JSONValue]) {
        guard let schema = f["schema"]?.string, let id = f["id"]?.string, let producedAt = f["produced_at"]?.string,
            let sessionID = f["session_id"]?.string, let plaintextB64 = f["plaintext_b64"]?.string,
            let correlationID = JSONValue.optionalString(f["correlation_id"]),
            let replyTo = JSONValue.optionalString(f["reply_to"])
        else { return nil }
        self.init(
            id: id, producedAt: producedAt, sessionID: sessionID, plaintextB64: plaintextB64,
            correlationID: correlationID ?? nil, replyTo: replyTo ?? nil)
        self.schema = schema
    }
}
