import Foundation
import HallmarkClient
import HallmarkTestSupport
import Testing

/// Every message the authority refuses on the privacy topic with a readable id — an admin
/// command, and for each subject type (its own, `device_serial`, and the others) an unsigned
/// request, a bad `key_id`, a bad subject — gets its rejected record and a `rejected` answer
/// on the results topic with its reason (DESIGN §2; issue #53, defect 7).
@Suite("Authority privacy refusals", .serialized, .timeLimit(.minutes(3)))
struct AuthorityPrivacyRefusalTests {
    @Test func everyRefusalIsAnsweredOnTheResultsTopic() async throws {
        let h = try await AuthorityHarness()
        let authority = try await h.start("refusals")
        defer { authority.signal(SIGKILL) }
        let privacy = h.configuration.privacy
        let topics = [privacy.results, h.rejected]

        let cases = try PrivacyRefusals.cases()
        for c in cases { try await h.producer.send(topic: privacy.requests, key: Array("refusals".utf8), value: c.sent.bytes) }
        _ = await h.watcher.wait(timeout: .seconds(60)) { PrivacyRefusals.isComplete(cases, outputs: $0.outputs(on: topics)) }
        let problems = PrivacyRefusals.problems(
            cases, service: "authority", results: privacy.results, outputs: h.watcher.outputs(on: topics))
        #expect(problems.isEmpty, "\(problems)")
        #expect(authority.process.isRunning)
        await h.close()
    }
}
