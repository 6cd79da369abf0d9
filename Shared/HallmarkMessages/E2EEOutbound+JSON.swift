import HallmarkCore

extension Message where Body == E2EEOutbound {
    /// The message bytes: the same as `JSONCoding.encode(self)` (a test holds them equal),
    /// written directly because the gateway answers every outbound request with one.
    public var jsonBytes: [UInt8] {
        var w = JSONObjectWriter()
        w.string("correlation_id", header.correlationID)
        w.string("id", header.id.text)
        w.value("message", body.message?.json)
        w.string("produced_at", header.producedAt.text)
        w.string("reason", body.reason?.rawValue)
        w.string("request_id", header.requestID?.text)
        w.string("schema", header.schema)
        w.string("session_id", body.sessionID)
        w.string("status", body.status.rawValue)
        return w.finish()
    }
}
