import Foundation
import HallmarkEnvelope
import Testing

struct EnvelopeTests {
    @Test func parsesAValidEnvelope() throws {
        let id = MessageID.random()
        let header = try EnvelopeHeader.parse(Array(
            #"{"schema":"s.v1","id":"\#(id.uppercased())","produced_at":"2025-01-01T00:00:00.000Z","correlation_id":"c"}"#.utf8))
        #expect(header.schema == "s.v1" && header.id == id && header.correlationID == "c")
    }

    @Test(arguments: [
        ("{", RejectionReason.invalidJSON), ("42", .invalidJSON), ("[]", .invalidJSON),
        (#"{"id":"00000000-0000-0000-0000-000000000000","produced_at":"2025-01-01T00:00:00Z"}"#, .invalidEnvelope),
        (#"{"schema":"s","id":"x","produced_at":"2025-01-01T00:00:00Z"}"#, .invalidEnvelope),
        (#"{"schema":"s","id":"00000000-0000-0000-0000-000000000000","produced_at":"yesterday"}"#, .invalidEnvelope),
        (#"{"schema":"s","id":"00000000-0000-0000-0000-000000000000","produced_at":"2025-01-01T00:00:00Z","reply_to":5}"#, .invalidEnvelope),
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
        #expect(UUID(uuidString: a) != nil)
    }

    @Test func schemaViolationsNameTheFieldNotTheValue() {
        struct Body: Decodable { let n: Int }
        do {
            _ = try JSONCoding.decode(Body.self, from: Array(#"{"n":"secret-value"}"#.utf8))
            Issue.record("expected a schema violation")
        } catch let error as EnvelopeError {
            #expect(error.code == .schemaViolation)
            #expect(error.reason.contains("n"))
            #expect(!error.description.contains("secret-value"))
        } catch { Issue.record("unexpected \(error)") }
    }
}
