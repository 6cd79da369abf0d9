import Foundation
import HallmarkCore
import HallmarkMessages
import Testing

@Suite(.timeLimit(.minutes(2)))
struct EnvelopeTests {
    @Test func parsesAValidEnvelope() throws {
        let id = MessageID.random()
        let header = try EnvelopeHeader.parse(
            Array(
                #"{"schema":"s.v1","id":"\#(id.text.uppercased())","produced_at":"2025-01-01T00:00:00.000Z","correlation_id":"c"}"#
                    .utf8))
        // The id exactly as written (DESIGN §2): an answer echoes it, and Swift's uuidString is upper case.
        #expect(header.schema == "s.v1" && header.id.text == id.text.uppercased() && header.correlationID == "c")
    }

    @Test(arguments: [
        ("{", RejectionReason.invalidJSON), ("42", .invalidJSON), ("[]", .invalidJSON),
        (#"{"id":"00000000-0000-0000-0000-000000000000","produced_at":"2025-01-01T00:00:00Z"}"#, .invalidEnvelope),
        (#"{"schema":"s","id":"x","produced_at":"2025-01-01T00:00:00Z"}"#, .invalidEnvelope),
        (#"{"schema":"s","id":"00000000-0000-0000-0000-000000000000","produced_at":"yesterday"}"#, .invalidEnvelope),
        (
            #"{"schema":"s","id":"00000000-0000-0000-0000-000000000000","produced_at":"2025-01-01T00:00:00Z","reply_to":5}"#,
            .invalidEnvelope
        ),
    ])
    func rejectsMalformedEnvelopes(_ text: String, _ reason: RejectionReason) {
        let error = #expect(throws: EnvelopeError.self) { try EnvelopeHeader.parse(Array(text.utf8)) }
        #expect(error?.code == reason)
    }

    @Test func derivedIDsAreStableDistinctUUIDs() {
        let a = MessageID.derived(from: "in-1", "result")
        #expect(a == MessageID.derived(from: "in-1", "result"))
        #expect(a != MessageID.derived(from: "in-2", "result"))
        #expect(a != MessageID.derived(from: "in-1", "rejected"))
        #expect(UUID(uuidString: a.text) != nil)
        // Known answer: version 8 from SHA-256("hallmark-output:in-1:result") (Python's hashlib).
        #expect(a.text == "ad670ad5-7cfa-84ed-945e-ed12cd54e9a3")
    }

    @Test func decodingFailuresNameTheFieldNotTheValue() {
        struct Body: Decodable { let n: Int; let inner: Inner }
        struct Inner: Decodable { let k: String }
        #expect(throws: JSONCodingError(path: "n", reason: "wrong type")) {
            _ = try JSONCoding.decode(Body.self, from: Array(#"{"n":"secret-value","inner":{"k":"x"}}"#.utf8))
        }
        #expect(throws: JSONCodingError(path: "inner.k", reason: "missing field")) {
            _ = try JSONCoding.decode(Body.self, from: Array(#"{"n":1,"inner":{}}"#.utf8))
        }
        do {
            _ = try JSONCoding.decode(Body.self, from: Array(#"{"n":"secret-value","inner":{"k":"x"}}"#.utf8))
        } catch {
            #expect(!error.description.contains("secret-value"))
        }
    }
}
