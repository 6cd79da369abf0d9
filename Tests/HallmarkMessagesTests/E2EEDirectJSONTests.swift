import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import Testing

/// The gateway's hand-written readers and writers for its hottest messages agree with
/// `JSONCoding` on every shape the schemas allow, and send anything else to the full decoder.
/// The readers take the body only: the envelope members are the intake's
/// (`EnvelopeHeader.read`), whatever they hold.
@Suite(.timeLimit(.minutes(2)))
struct E2EEDirectJSONTests {
    static let wire = InvisoWireMessage(
        counter: 9_223_372_036_854_775_807, nonce: "AAECAwQFBgcICQoL",
        ciphertext: "qLHZZ2kxsjQBMREBIg==", tag: "VtSKr7KW5uPSKgsjUFxR3w==")
    static let awkward = "quote \" backslash \\ slash / tab \t nul \u{0} é 🦆"

    static func fields(_ message: some Encodable) throws -> [String: JSONValue] {
        try #require(JSONReader.parse(try JSONCoding.encode(message)).object)
    }

    @Test(arguments: [(nil, nil), ("corr-1", "replies.topic"), (awkward, nil)] as [(String?, String?)])
    func inboundReadsWhatJSONDecoderReads(correlation: String?, replyTo: String?) throws {
        let inbound = Message(
            E2EEInbound(sessionID: Self.awkward, message: Self.wire), correlationID: correlation, replyTo: replyTo)
        #expect(E2EEInbound(fields: try Self.fields(inbound)) == inbound.body)
        #expect(try JSONCoding.decode(Message<E2EEInbound>.self, from: JSONCoding.encode(inbound)) == inbound)
        let request = Message(
            E2EEOutboundRequest(sessionID: "s-1", plaintextB64: "SGk="), correlationID: correlation, replyTo: replyTo)
        #expect(E2EEOutboundRequest(fields: try Self.fields(request)) == request.body)
        #expect(try JSONCoding.decode(Message<E2EEOutboundRequest>.self, from: JSONCoding.encode(request)) == request)
    }

    @Test func anythingUnplainGoesToTheFullDecoder() throws {
        let inbound = Message(E2EEInbound(sessionID: "s", message: Self.wire))
        let good = try Self.fields(inbound)
        func changed(_ change: (inout [String: JSONValue]) -> Void) -> [String: JSONValue] {
            var f = good
            change(&f)
            return f
        }
        func with(_ change: (inout [String: JSONValue]) -> Void) -> E2EEInbound? {
            E2EEInbound(fields: changed(change))
        }
        /// What the intake reads of the envelope before the body reader runs.
        func envelope(_ change: (inout [String: JSONValue]) -> Void) throws(EnvelopeError) -> EnvelopeHeader {
            try EnvelopeHeader.read(JSONWriter.write(.object(changed(change)))).header
        }
        func wire(_ key: String, _ value: JSONValue?) -> E2EEInbound? {
            with { f in
                var m = f["message"]!.object!
                m[key] = value
                f["message"] = .object(m)
            }
        }
        #expect(wire("counter", .number("1.0")) == nil)
        #expect(wire("counter", .number("-0")) == nil)
        #expect(wire("counter", .number("1e2")) == nil)
        #expect(wire("counter", .number("18446744073709551616")) == nil)
        #expect(wire("version", .number("1.0")) == nil)
        #expect(wire("nonce", .number("1")) == nil)
        #expect(wire("tag", nil) == nil)
        #expect(wire("extra", .null) == nil)
        #expect(throws: EnvelopeError.self) { try envelope { $0["correlation_id"] = .number("1") } }
        #expect(with { $0["session_id"] = .null } == nil)
        #expect(with { $0["message"] = .array([]) } == nil)
        #expect(try envelope { $0["correlation_id"] = .null }.correlationID == nil)
        #expect(with { $0["correlation_id"] = .null } == inbound.body)
    }

    @Test(arguments: [nil] + E2EEPlaintext.Reason.allCases.map(Optional.some))
    func plaintextBytesEqualJSONCoding(_ reason: E2EEPlaintext.Reason?) throws {
        let result =
            reason.map {
                Message(
                    E2EEPlaintext(sessionID: Self.awkward, reason: $0, counter: $0 == .malformed ? nil : 41),
                    correlationID: Self.awkward, requestID: MessageID.random())
            }
            ?? Message(
                E2EEPlaintext(sessionID: Self.awkward, counter: UInt64(Int64.max), plaintextB64: "SGVsbG8sIFdvcmxkIQ=="),
                correlationID: "c", requestID: MessageID.random())
        #expect(result.jsonBytes == (try JSONCoding.encode(result)))
    }

    @Test(arguments: [nil] + E2EEOutbound.Reason.allCases.map(Optional.some))
    func outboundBytesEqualJSONCoding(_ reason: E2EEOutbound.Reason?) throws {
        let result =
            reason.map {
                Message(
                    E2EEOutbound(sessionID: "s", reason: $0), correlationID: Self.awkward,
                    requestID: MessageID.random())
            }
            ?? Message(
                E2EEOutbound(sessionID: Self.awkward, message: Self.wire), correlationID: "c",
                requestID: MessageID.random())
        #expect(result.jsonBytes == (try JSONCoding.encode(result)))
    }
}
