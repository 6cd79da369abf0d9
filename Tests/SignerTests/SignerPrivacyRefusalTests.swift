import Foundation
import HallmarkClient
import HallmarkTestSupport
import Testing

/// Every message the signer refuses on the privacy topic with a readable id — an admin
/// command, and for each subject type (its own, `partner_id`, and the others) an unsigned
/// request, a bad `key_id`, a bad subject — gets its rejected record and a `rejected` answer
/// on the results topic with its reason (DESIGN §2; issue #53, defect 7).
@Suite("Signer privacy refusals", .serialized, .timeLimit(.minutes(3)))
struct SignerPrivacyRefusalTests {
    @Test func everyRefusalIsAnsweredOnTheResultsTopic() async throws {
        let h = try await SignerHarness(secrets: ["1": "s3cret-one"], signing: "1")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("signer-refusals-\(h.id)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let privacy = try await h.privacy(in: folder)
        let signer = try await h.startSigner("refusals", privacy.signer)
        defer { signer.signal(SIGKILL) }
        let topics = [privacy.topics.results, h.rejected]
        let watcher = try AnswerWatcher(kafka: h.kafka, topics: topics, fromStart: true, logger: h.logger)
        let reader = Task { await watcher.run() }

        let cases = try PrivacyRefusals.cases()
        for c in cases { try await h.send(privacy.topics.requests, key: "refusals", c.sent.bytes) }
        _ = await watcher.wait(timeout: .seconds(60)) { PrivacyRefusals.isComplete(cases, outputs: $0.outputs(on: topics)) }
        let problems = PrivacyRefusals.problems(
            cases, service: "signer", results: privacy.topics.results, outputs: watcher.outputs(on: topics))
        #expect(problems.isEmpty, "\(problems)")
        #expect(signer.process.isRunning)
        await watcher.close()
        await reader.value
        await h.close()
    }
}
