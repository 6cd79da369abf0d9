import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import HallmarkRuntime
import Testing

/// CloudEvents binary mode headers are the envelope's own fields, read from the payload
/// without building the rest of it.
@Suite("CloudEvents headers", .timeLimit(.minutes(1)))
struct CloudEventsTests {
    @Test func theHeadersAreTheEnvelopesFields() throws {
        let request = Message(
            SignRequest(headers: [:], bodyB64: "", timestamp: nil), id: MessageID.derived(from: "r", "x"),
            correlationID: "order \"7\" \\ é")
        let value = try JSONCoding.encode(request)
        let headers = CloudEvents.headers(for: value, source: CloudEvents.source(service: "signer"))
        let text = Dictionary(uniqueKeysWithValues: headers.map { ($0.name, $0.text ?? "") })
        #expect(headers.count == text.count, "a header twice")
        #expect(text["ce_specversion"] == "1.0")
        #expect(text["ce_id"] == request.id.text)
        #expect(text["ce_source"] == "/hallmark/signer")
        #expect(text["ce_type"] == "hallmark.sign.request.v1")
        #expect(text["ce_time"] == request.producedAt.description)
        #expect(text["ce_dataschema"] == "https://hallmark.local/proto-json/hallmark.sign.request.v1.json")
        #expect(text["content-type"] == "application/json")
        #expect(text["ce_correlationid"] == "order \"7\" \\ é")
        // Without a correlation id, no such header.
        let plain = try JSONCoding.encode(Message(SignRequest(headers: [:], bodyB64: "", timestamp: nil)))
        #expect(!CloudEvents.headers(for: plain, source: "/s").contains { $0.name == "ce_correlationid" })
        // Not an envelope: no headers at all (the message still goes, as it is).
        for other in ["", "[1]", #"{"id":"x"}"#, "{", #"{"schema":"a","id":"b","produced_at":"c","id":"d"}"#] {
            #expect(CloudEvents.headers(for: Array(other.utf8), source: "/s").isEmpty, "\(other)")
        }
    }

    @Test func stringMembersWalksOverEverythingElse() {
        let document = #"""
            { "big": {"a": [1, -2.5e3, true, false, null, {"b": "}\"]"}], "c": "\\"},
              "id": "x\u00e9\n", "n": 7, "schema": 3, "s": "", "arr": [[[]]] }
            """#
        let names = JSONReader.MemberNames(["id", "schema", "s", "missing", "é"])
        #expect(JSONReader.stringMembers(Array(document.utf8), named: names) == ["xé\n", nil, "", nil, nil])
        // A name written with escapes is the name it spells.
        let escaped = #"{"\u0069d":"1","\u00e9":"2","i\"d":"3"}"#
        #expect(JSONReader.stringMembers(Array(escaped.utf8), named: names) == ["1", nil, nil, nil, "2"])
        #expect(JSONReader.stringMembers(Array("{}".utf8), named: names) == [nil, nil, nil, nil, nil])
        let only = JSONReader.MemberNames(["id"])
        for bad in ["", "  ", "[]", "\"id\"", #"{"id":"x""#, #"{"a":[1,}"#, #"{"a":"\#u{01}"}"#, #"{"a":tru}"#, "{\"a\":\"\\"] {
            #expect(JSONReader.stringMembers(Array(bad.utf8), named: only) == nil, "\(bad)")
        }
        // Nesting is bounded as the reader's is.
        let deep = #"{"a":"# + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}"
        #expect(JSONReader.stringMembers(Array(deep.utf8), named: only) == nil)
        // A name twice is ambiguous.
        #expect(JSONReader.stringMembers(Array(#"{"id":"a","id":"b"}"#.utf8), named: only) == nil)
    }
}
