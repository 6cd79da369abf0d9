import HallmarkCore

extension E2EEOutboundRequest {
    /// Reads the body from the members intake already parsed, as
    /// ``E2EEInbound/init(fields:)`` does; nil sends the caller to the full decoder.
    public init?(fields f: [String: JSONValue]) {
        guard let sessionID = f["session_id"]?.string, let plaintextB64 = f["plaintext_b64"]?.string else { return nil }
        self.init(sessionID: sessionID, plaintextB64: plaintextB64)
    }
}
