import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import Testing

/// The gateway's hand-written readers and writers for its hottest messages agree with
/// `JSONCoding` on every shape the schemas allow, and send anything else to the full decoder.
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
        let inbound = E2EEInbound(
            id: MessageID.random(), producedAt: Timestamp.now(), sessionID: Self.awkward,
            message: Self.wire, correlationID: correlation, replyTo: replyTo)
        #expect(E2EEInbound(fields: try Self.fields(inbound)) == inbound)
        let request = E2EEOutboundRequest(
            id: MessageID.random(), producedAt: Timestamp.now(), sessionID: "s-1",
            plaintextB64: "SGk=", correlationID: correlation, replyTo: replyTo)
        #expect(E2EEOutboundRequest(fields: try Self.fields(request)) == request)
    }

    @Test func anythingUnplainGoesToTheFullDecoder() throws {
        let inbound = E2EEInbound(id: MessageID.random(), producedAt: Timestamp.now(), sessionID: "s", message: Self.wire)
        let good = try Self.fields(inbound)
        func with(_ change: (inout [String: JSONValue]) -> Void) -> E2EEInbound? {
            var f = good
            change(&f)
            return E2EEInbound(fields: f)
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
        #expect(with { $0["correlation_id"] = .number("1") } == nil)
        #expect(with { $0["session_id"] = .null } == nil)
        #expect(with { $0["message"] = .array([]) } == nil)
        #expect(with { $0["correlation_id"] = .null }?.correlationID == nil)
    }

    @Test(arguments: [nil] + E2EEPlaintext.Reason.allCases.map(Optional.some))
    func plaintextBytesEqualJSONCoding(_ reason: E2EEPlaintext.Reason?) throws {
        let result =
            reason.map {
                E2EEPlaintext(
                    id: MessageID.random(), producedAt: Timestamp.now(), correlationID: Self.awkward,
                    requestID: MessageID.random(), sessionID: Self.awkward, reason: $0,
                    counter: $0 == .malformed ? nil : 41)
            }
            ?? E2EEPlaintext(
                id: MessageID.random(), producedAt: Timestamp.now(), correlationID: "c",
                requestID: MessageID.random(), sessionID: Self.awkward, counter: UInt64(Int64.max),
                plaintextB64: "SGVsbG8sIFdvcmxkIQ==")
        #expect(result.jsonBytes == (try JSONCoding.encode(result)))
    }

    @Test(arguments: [nil] + E2EEOutbound.Reason.allCases.map(Optional.some))
    func outboundBytesEqualJSONCoding(_ reason: E2EEOutbound.Reason?) throws {
        let result =
            reason.map {
                E2EEOutbound(
                    id: MessageID.random(), producedAt: Timestamp.now(), correlationID: Self.awkward,
                    requestID: MessageID.random(), sessionID: "s", reason: $0)
            }
            ?? E2EEOutbound(
                id: MessageID.random(), producedAt: Timestamp.now(), correlationID: "c",
                requestID: MessageID.random(), sessionID: Self.awkward, message: Self.wire)
        #expect(result.jsonBytes == (try JSONCoding.encode(result)))
    }
}
