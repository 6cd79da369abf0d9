import HallmarkCore

extension E2EEPlaintext {
    /// The message bytes: the same as `JSONCoding.encode(self)` (a test holds them equal),
    /// written directly because the gateway answers every inbound message with one.
    public var jsonBytes: [UInt8] {
        var w = JSONObjectWriter()
        w.string("correlation_id", correlationID)
        w.number("counter", counter)
        w.string("id", id)
        w.string("plaintext_b64", plaintextB64)
        w.string("produced_at", producedAt)
        w.string("reason", reason?.rawValue)
        w.string("request_id", requestID)
        w.string("schema", schema)
        w.string("session_id", sessionID)
        w.string("status", status.rawValue)
        return w.finish()
    }
}
