import Foundation
import HallmarkCore
import HallmarkMessages
import Testing

/// The envelope reader refuses a `correlation_id` or `reply_to` a result could not carry on.
@Suite(.timeLimit(.minutes(1)))
struct EnvelopeHeaderTests {
    func read(_ extra: String) throws(EnvelopeError) -> EnvelopeHeader {
        let text = #"{"schema":"s.v1","id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","produced_at":"2025-01-01T00:00:00Z"\#(extra)}"#
        return try EnvelopeHeader.read(Array(text.utf8)).header
    }

    @Test func acceptsWellFormedCorrelationAndReplyTo() throws {
        let h = try read(#","correlation_id":"\#(String(repeating: "~", count: 128))","reply_to":"a.b_c-D9""#)
        #expect(h.correlationID?.count == 128 && h.replyTo == "a.b_c-D9")
        #expect(try read(#","correlation_id":null"#).correlationID == nil)
    }

    @Test(arguments: [
        #","correlation_id":"""#, #","correlation_id":"a b""#, #","correlation_id":"a\u0000""#, #","correlation_id":"\u00e9""#,
        #","correlation_id":"\#(String(repeating: "c", count: 129))""#, #","correlation_id":7"#,
        #","reply_to":"""#, #","reply_to":".""#, #","reply_to":"..""#, #","reply_to":"a/b""#, #","reply_to":"a b""#,
        #","reply_to":"\#(String(repeating: "t", count: 250))""#,
    ])
    func refusesMalformedCorrelationAndReplyTo(_ extra: String) {
        let error = #expect(throws: EnvelopeError.self) { try read(extra) }
        #expect(error?.code == .invalidEnvelope)
    }
}
