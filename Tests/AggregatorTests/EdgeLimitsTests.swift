import Foundation
import HallmarkPostgres
import HallmarkTestSupport
import Testing

/// The edge at its limits, with Tansu, PostgreSQL, the authority and the edge as processes: a
/// body at the size limit is read and one byte past it is 413, however it is sent; a receipt
/// store that stops answering is 503 at the backend timeout, never a request held for ever or
/// a 500, and the camera's retry of the same bytes is then served; so is a broker that stops
/// answering.
@Suite("Edge limits", .serialized, .timeLimit(.minutes(5)))
struct EdgeLimitsTests {
    static let limit = 4096

    @Test func aBodyAtTheLimitIsReadAndOneBytePastItIs413() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let authority = try await h.startAuthority("a")
        let (edge, client) = try await h.startEdge(
            "size",
            [
                "HALLMARK_EDGE_MAX_BODY_BYTES": String(Self.limit), "HALLMARK_EDGE_ANSWER_WAIT_MS": "300",
                "HALLMARK_EDGE_READ_TIMEOUT_MS": "20000",
            ])
        defer { [authority, edge].forEach { $0.signal(SIGKILL) } }
        let cam = try await h.provisioned("CAM-\(h.id)-size")
        let bundle = EdgeSubmissionTests.piBundle(
            cam, hash: EdgeSubmissionTests.hash(), token: try cam.packedToken(), timestamp: Int(Date().timeIntervalSince1970))
        func padded(to size: Int) -> [UInt8] { bundle + Array(repeating: UInt8(ascii: " "), count: size - bundle.count) }

        let at = try await client.post("/api/v1/submit-legacy", padded(to: Self.limit))
        #expect(at.status == 202 && at["receipt_id"] is String, "\(String(decoding: at.body, as: UTF8.self))")
        let past = try await client.post("/api/v1/submit-legacy", padded(to: Self.limit + 1))
        #expect(past.status == 413 && past["error"] as? String == "too_large")

        // 8 MB announced: answered from the head, before a byte of the body is sent (well
        // inside the read timeout, so not a 408).
        let start = ContinuousClock.now
        let announced = try client.trickle(
            head: "POST /api/v1/submit HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 8388608\r\n\r\n",
            sent: 0)
        #expect(announced.status.hasPrefix("HTTP/1.1 413") && announced.body.contains("\"too_large\""), "\(announced)")
        // Chunked, with no length: answered once the limit is passed, the rest never sent.
        let chunk = Self.limit + 1024
        let chunked = try client.trickle(
            head:
                "POST /api/v1/submit HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n\(String(chunk, radix: 16))\r\n",
            sent: chunk)
        #expect(chunked.status.hasPrefix("HTTP/1.1 413") && chunked.body.contains("\"too_large\""), "\(chunked)")
        #expect(ContinuousClock.now - start < .seconds(15))
    }

    @Test func aReceiptStoreThatStopsAnsweringIs503AndTheRetryIsServed() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let authority = try await h.startAuthority("a")
        let (edge, client) = try await h.startEdge("store", ["HALLMARK_EDGE_ANSWER_WAIT_MS": "300"])
        defer { [authority, edge].forEach { $0.signal(SIGKILL) } }
        let cam = try await h.provisioned("CAM-\(h.id)-store")
        let bundle = EdgeSubmissionTests.piBundle(
            cam, hash: EdgeSubmissionTests.hash(), token: try cam.packedToken(), timestamp: Int(Date().timeIntervalSince1970))

        // Another session holds the receipts: every read and write of them waits.
        let schema = "edge_\(h.id)"
        let table = "\(schema).receipts"
        let (released, release) = AsyncStream<Void>.makeStream()
        let holder = Task {
            try await h.pool.transaction { connection in
                try await connection.execute("LOCK TABLE \(unescaped: schema).receipts IN ACCESS EXCLUSIVE MODE")
                for await _ in released { break }
            }
        }
        try await h.pool.waitForLock(on: table, granted: true)

        try await Self.expectRefusedAtTheBackendTimeout(client, bundle, hiding: ["postgres", "lock", "receipts"])
        let lookup = try await client.get("/api/v1/submission/\(UUID().uuidString.lowercased())")
        #expect(lookup.status == 503 && lookup["error"] as? String == "unavailable")
        // The edge itself still serves.
        #expect(try await client.get("/health").status == 200)

        release.yield()
        try await holder.value
        // The camera sends the same bytes again: one receipt, served.
        let retry = try await client.post("/api/v1/submit-legacy", bundle)
        #expect(retry.status == 202, "\(String(decoding: retry.body, as: UTF8.self))")
        let receipt = try #require(retry["receipt_id"] as? String)
        #expect(try await client.get("/api/v1/submission/\(receipt)").status == 200)
    }

    @Test func aBrokerThatStopsAnsweringIs503AndTheRetryIsServed() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let authority = try await h.startAuthority("a")
        defer { authority.signal(SIGKILL) }
        let cam = try await h.provisioned("CAM-\(h.id)-broker")
        // The edge alone talks to a broker of this test's own, which the test then stops.
        let broker = try await PrivateBroker(name: "\(h.id)-broker")
        defer { broker.process.signal(SIGKILL) }
        let (edge, client) = try await h.startEdge(
            "broker", ["HALLMARK_KAFKA_BROKERS": broker.address, "HALLMARK_EDGE_ANSWER_WAIT_MS": "300"])
        defer { edge.signal(SIGKILL) }
        func bundle() throws -> [UInt8] {
            EdgeSubmissionTests.piBundle(
                cam, hash: EdgeSubmissionTests.hash(), token: try cam.packedToken(),
                timestamp: Int(Date().timeIntervalSince1970))
        }
        // Published (no aggregator reads this broker, so the receipt stays pending).
        let taken = try await client.post("/api/v1/submit-legacy", try bundle())
        #expect(taken.status == 202 && taken["status"] as? String == "pending_validation", "\(taken.status)")

        broker.pause()
        let second = try bundle()
        try await Self.expectRefusedAtTheBackendTimeout(client, second, hiding: ["rdkafka", broker.address, "timed out"])
        #expect(try await client.get("/health").status == 200)

        broker.resume()
        // The camera sends the same bytes again: served.
        let retry = try await client.post("/api/v1/submit-legacy", second)
        #expect(retry.status == 202, "\(String(decoding: retry.body, as: UTF8.self))")
    }

    /// Posts `bundle` and checks it is refused 503 `unavailable` at the backend timeout (5 s),
    /// not at once and not at the client's own timeout, with none of `hidden` in the answer.
    static func expectRefusedAtTheBackendTimeout(
        _ client: EdgeClient, _ bundle: [UInt8], hiding hidden: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let start = ContinuousClock.now
        let refused = try await client.post("/api/v1/submit-legacy", bundle)
        let waited = ContinuousClock.now - start
        #expect(
            refused.status == 503 && refused["error"] as? String == "unavailable", "\(refused.status)",
            sourceLocation: sourceLocation)
        #expect(waited >= .seconds(4) && waited < .seconds(25), "\(waited)", sourceLocation: sourceLocation)
        let text = String(decoding: refused.body, as: UTF8.self).lowercased()
        #expect(!hidden.contains { text.contains($0.lowercased()) }, "\(text)", sourceLocation: sourceLocation)
    }
}
