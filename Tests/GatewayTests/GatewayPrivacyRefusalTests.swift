import Foundation
import HallmarkClient
import HallmarkTestSupport
import Testing

/// Every message the gateway refuses on the privacy topic with a readable id — an admin
/// command, and for each subject type (its own, `session_id`, and the others) an unsigned
/// request, a bad `key_id`, a bad subject — gets its rejected record and a `rejected` answer
/// on the results topic with its reason (DESIGN §2; issue #53, defect 7).
@Suite("Gateway privacy refusals", .serialized, .timeLimit(.minutes(3)))
struct GatewayPrivacyRefusalTests {
    @Test func everyRefusalIsAnsweredOnTheResultsTopic() async throws {
        let h = try await GatewayHarness()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-refusals-\(h.id)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let privacy = try await h.privacy(in: folder)
        let gateway = try await h.startGateway("refusals", privacy.gateway)
        defer { gateway.signal(SIGKILL) }
        let (requests, results) = (h.topic("privacy.in"), h.topic("privacy.out"))
        let topics = [results, h.rejected]
        let watcher = try AnswerWatcher(kafka: h.kafka, topics: topics, fromStart: true, logger: h.logger)
        let reader = Task { await watcher.run() }

        let cases = try PrivacyRefusals.cases()
        for c in cases { try await h.send(requests, key: "refusals", c.sent.bytes) }
        _ = await watcher.wait(timeout: .seconds(60)) { PrivacyRefusals.isComplete(cases, outputs: $0.outputs(on: topics)) }
        let problems = PrivacyRefusals.problems(cases, service: "gateway", results: results, outputs: watcher.outputs(on: topics))
        #expect(problems.isEmpty, "\(problems)")
        #expect(gateway.process.isRunning)
        await watcher.close()
        await reader.value
        await h.close()
    }
}
