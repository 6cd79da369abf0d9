import AggregatorCore
import Foundation
import HallmarkClient
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkTestSupport
import Synchronization
import Testing

/// Two edges without affinity, one SIGKILLed under load: cameras that lose their connection
/// retry the same bytes on the other (as the reference Pi retries), and every receipt any
/// camera was given resolves, from either edge, and after the killed one comes back.
@Suite("Edge resilience", .serialized, .timeLimit(.minutes(8)))
struct EdgeResilienceTests {
    @Test func anEdgeKilledUnderLoadLosesNoReceipt() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let (authority, aggregator) = try await h.startBoth()
        var (first, one) = try await h.startEdge("e1")
        let (second, two) = try await h.startEdge("e2")
        defer { [authority, aggregator, first, second].forEach { $0.signal(SIGKILL) } }
        let cam = try await h.provisioned("CAM-\(h.id)-edges")
        let now = Int(Date().timeIntervalSince1970)
        let count = 400
        let bodies: [(hash: String, body: [UInt8])] = try (0..<count).map { _ in
            let hash = EdgeSubmissionTests.hash()
            return (hash, EdgeSubmissionTests.piBundle(cam, hash: hash, token: try cam.packedToken(), timestamp: now))
        }

        // 16 cameras at a time, round robin across the two edges; a refused or broken
        // connection is retried, same bytes, on the other edge.
        let progress = Progress()
        let clients = [one, two]
        let load = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<16 {
                    group.addTask {
                        for i in stride(from: worker, to: count, by: 16) {
                            var attempt = 0
                            while true {
                                let client = clients[(i + attempt) % 2]
                                if let answer = try? await client.post("/api/v1/submit-legacy", bodies[i].body),
                                    answer.status == 202, let receipt = answer["receipt_id"] as? String
                                {
                                    progress.receipts.withLock { $0[i] = receipt }
                                    break
                                }
                                attempt += 1
                                if attempt > 20 { throw HarnessError("bundle \(i) was never received") }
                            }
                            progress.done.add(1, ordering: .relaxed)
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        #expect(try await eventually(timeout: .seconds(120)) { progress.done.load(ordering: .relaxed) >= count / 4 })
        first.signal(SIGKILL)
        try await load.value
        let given = progress.receipts.withLock { $0 }
        #expect(given.count == count)

        // The killed edge back: every receipt resolves accepted, asked of either edge.
        (first, one) = try await h.startEdge("e1-again")
        let edges = [one, two]
        let all = given.sorted { $0.key < $1.key }
        #expect(
            try await eventually(timeout: .seconds(120), interval: .milliseconds(500)) {
                for (i, receipt) in all {
                    // From the edge the bundle was not sent to first.
                    let answer = try await edges[(i + 1) % 2].get("/api/v1/submission/\(receipt)")
                    guard answer.status == 200, answer["status"] as? String == "accepted" else { return false }
                }
                return true
            })
        for (i, receipt) in all.prefix(20) {
            let answer = try await one.get("/api/v1/submission/\(receipt)")
            #expect(answer["status"] as? String == "accepted", "bundle \(i)")
        }
        // Each bundle is one receipt and one leaf, however many times it was sent.
        let logged = Set(try await h.storedLeaves().map(\.1))
        #expect(bodies.allSatisfy { logged.contains($0.hash) })
        #expect(Set(given.values).count == count)
    }
}

/// What the cameras have done so far.
private final class Progress: Sendable {
    let done = Atomic<Int>(0)
    let receipts = Mutex<[Int: String]>([:])
}
