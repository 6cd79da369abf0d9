import HallmarkTestSupport
import Foundation
import HallmarkCore
import HallmarkMessages
import Testing

/// Chaining (DESIGN §2): the signer's sign output is pointed at its own verify input, so every
/// sign result is verified as it is — no copy step — and comes out accepted, keeping the
/// request's correlation id and method/path along the chain; a replayed sign result is a replay.
@Suite("Signer chaining", .serialized, .timeLimit(.minutes(4)))
struct SignerChainingTests {
    @Test func signResultsFeedVerifyThroughTheBroker() async throws {
        let h = try await SignerHarness(secrets: ["v1": "chain-secret"], signing: "v1")
        let signer = try await h.startSigner("chain", ["HALLMARK_SIGNER_SIGN_OUTPUT": h.verifyInput])
        var requests: [Message<SignRequest>] = []
        for i in 0..<20 {
            let request = Message(
                SignRequest(
                    headers: ["SmileID-Partner-ID": "chain-\(i % 4)", "Content-Type": "application/json"],
                    bodyB64: Data(#"{"job":\#(i)}"#.utf8).base64EncodedString(),
                    method: "POST", path: "/v1/jobs/\(i)"),
                correlationID: i % 2 == 0 ? "order-\(i)" : nil)
            requests.append(request)
            try await h.send(h.signInput, key: "chain-\(i % 4)", message: request)
        }
        // A verify result's request_id is the sign result's id: derived from the sign request's.
        let signResultIDs = requests.map { MessageID.derived(from: $0.id, "result") }
        let verdicts = try await h.results(h.verifyOutput, for: signResultIDs)
        for (request, resultID) in zip(requests, signResultIDs) {
            let verdict = try #require(verdicts[resultID]?.first)
            #expect(verdict["verdict"] as? String == "accepted", "\(verdict)")
            #expect(verdict["correlation_id"] as? String == request.correlationID ?? request.id.text)
            #expect(verdict["method"] as? String == "POST" && verdict["path"] as? String == request.path)
            try SchemaCheck.validate(verdict, against: VerifyResult.schemaName)
        }
        // The same sign result sent again under a new id is a replay.
        let copy = try await h.read(h.verifyInput) { $0.count >= 1 }.first!
        var replayed = copy
        replayed["id"] = MessageID.random().text
        try await h.send(h.verifyInput, key: "chain-0", try JSONSerialization.data(withJSONObject: replayed).map { $0 })
        let again = try await h.results(h.verifyOutput, for: [replayed["id"] as! String])
        #expect(again[replayed["id"] as! String]?.first?["reason"] as? String == "replay")
        signer.signal(SIGTERM)
        #expect(await signer.waitForExit(timeout: .seconds(30)) == 0)
        await h.close()
    }
}
