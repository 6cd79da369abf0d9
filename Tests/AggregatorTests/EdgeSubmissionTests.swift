import AggregatorCore
import Foundation
import HallmarkClient
import HallmarkCore
import HallmarkCrypto
import HallmarkKafka
import HallmarkMessages
import HallmarkTestSupport
import Logging
import Testing

/// The edge end to end (DESIGN BM-EDGE), with Tansu, PostgreSQL, the authority, the aggregator
/// and the edge as processes: bundles byte-identical to the reference clients' go in over
/// HTTP, strict messages come out on the topic, and every receipt resolves.
@Suite("Edge submissions", .serialized, .timeLimit(.minutes(5)))
struct EdgeSubmissionTests {
    typealias Value = ReferenceBody.PythonValue

    static func hash() -> String { Hex.encode(try! SecureRandom.bytes(32)) }

    /// The reference Raspberry Pi's bundle (submission_client.py `to_json`), member for member.
    static func piBundle(
        _ cam: ProvisioningFile, hash: String, token: BirthmarkMobileToken, timestamp: Int, parent: String? = nil,
        isp: Bool = false, gps: String? = nil, owner: String? = nil
    ) -> [UInt8] {
        var members: [(String, Value)] = [
            ("image_hash", .string(hash)), ("encrypted_nuc_token", .string(token.encryptedNucToken)),
            ("table_references", .ints(token.tableReferences)), ("key_indices", .ints(token.keyIndices)),
            ("timestamp", .int(timestamp)), ("modification_level", .int(parent == nil ? 0 : 1)),
        ]
        if let parent { members.append(("parent_image_hash", .string(parent))) }
        if let gps { members.append(("gps_hash", .string(gps))) }
        if let owner { members.append(("owner_hash", .string(owner))) }
        members.append(("device_signature", .string(Base64.encode(try! SecureRandom.bytes(71)))))
        if isp {
            members.append(
                (
                    "isp_validation",
                    .object([
                        ("variance_metric", .double("0.0213")),
                        (
                            "isp_parameters",
                            .object([
                                ("white_balance", .object([("red_gain", .double("1.52")), ("blue_gain", .double("1.41"))])),
                                ("exposure_adjustment", .double("0.0")), ("sharpening", .double("0.5")),
                                ("noise_reduction", .double("0.3")),
                            ])
                        ),
                        ("sample_count", .int(5)), ("shooting_mode", .string("auto")), ("metric_version", .string("v2.0")),
                    ])
                ))
        }
        return ReferenceBody.python(members)
    }

    @Test func aPiSubmitsItsRawAndProcessedBundlesUnchanged() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let (authority, aggregator) = try await h.startBoth()
        // A wait long enough that the outcome comes with the answer even on a loaded machine.
        let (edge, client) = try await h.startEdge("e", ["HALLMARK_EDGE_ANSWER_WAIT_MS": "30000"])
        defer { [authority, aggregator, edge].forEach { $0.signal(SIGKILL) } }
        let topic = try AnswerWatcher(
            kafka: h.kafka, topics: [h.aggregator.submissionInput], fromStart: true,
            logger: Logger(label: "edge-test"))
        let reading = Task { await topic.run() }
        defer { reading.cancel() }
        let cam = try await h.provisioned("CAM-\(h.id)-pi")

        // The Pi: the raw bundle, then the processed one with the same token and timestamp.
        let token = try cam.packedToken()
        let (raw, processed) = (Self.hash(), Self.hash())
        let now = Int(Date().timeIntervalSince1970)
        let first = try await client.post("/api/v1/submit-legacy", Self.piBundle(cam, hash: raw, token: token, timestamp: now))
        #expect(first.status == 202)
        #expect(first["status"] as? String == "accepted", "\(String(decoding: first.body, as: UTF8.self))")
        let second = try await client.outcome(
            try await client.post(
                "/api/v1/submit-legacy", Self.piBundle(cam, hash: processed, token: token, timestamp: now, parent: raw, isp: true)
            ))
        #expect(second["status"] as? String == "accepted")
        for answer in [first, second] {
            let receipt = try #require(answer["receipt_id"] as? String)
            #expect(UUID(text: receipt) != nil && answer["message"] is String && answer["timestamp"] is String)
            let later = try await client.get("/api/v1/submission/\(receipt)")
            #expect(later.status == 200 && later["status"] as? String == "accepted")
            #expect((later["leaves"] as? [[String: Any]])?.first?["leaf_index"] is Int)
        }

        // Upper-case hex, as the reference server takes it: logged in lower case.
        let upper = Self.hash()
        let shouting = try await client.outcome(
            try await client.post(
                "/api/v1/submit-legacy",
                Self.piBundle(cam, hash: upper.uppercased(), token: try cam.packedToken(), timestamp: now)))
        #expect(shouting["status"] as? String == "accepted")

        // The same bundle again (the Pi retries after a timeout): the same receipt and answer.
        let body = Self.piBundle(cam, hash: Self.hash(), token: try cam.packedToken(), timestamp: now)
        let once = try await client.post("/api/v1/submit-legacy", body)
        let twice = try await client.post("/api/v1/submit-legacy", body)
        #expect(once["receipt_id"] as? String == twice["receipt_id"] as? String)
        #expect(try await client.outcome(once)["status"] as? String == "accepted")
        #expect(try await client.outcome(twice)["status"] as? String == "accepted")

        // The reference server's CameraSubmission, as a Python client posts it: a raw and a
        // processed hash under one reference-format token, on /api/v1/submit.
        let t = try cam.referenceRequest().token
        let (captured, edited) = (Self.hash(), Self.hash())
        let submission = ReferenceBody.python([
            ("submission_type", .string("camera")),
            (
                "image_hashes",
                .list([
                    .object([
                        ("image_hash", .string(captured)), ("modification_level", .int(0)), ("parent_image_hash", .null),
                    ]),
                    .object([
                        ("image_hash", .string(edited)), ("modification_level", .int(1)),
                        ("parent_image_hash", .string(captured)),
                    ]),
                ])
            ),
            (
                "camera_token",
                .object([
                    ("ciphertext", .string(t.ciphertext)), ("auth_tag", .string(t.authTag)), ("nonce", .string(t.nonce)),
                    ("table_id", .int(t.tableId)), ("key_index", .int(t.keyIndex)),
                ])
            ),
            (
                "manufacturer_cert",
                .object([
                    ("authority_id", .string(h.aggregator.authorityID)),
                    ("validation_endpoint", .string("http://localhost:8001/api/v1/validate")),
                ])
            ),
            ("timestamp", .int(now)),
        ])
        let camera = try await client.outcome(try await client.post("/api/v1/submit", submission))
        #expect(camera["status"] as? String == "accepted" && (camera["leaves"] as? [[String: Any]])?.count == 2)

        let logged = Set(try await h.storedLeaves().map(\.1))
        #expect(logged.isSuperset(of: [raw, processed, upper, captured, edited]))

        // What reached the topic is strict: its schema's, lower-case hex, never the device
        // signature or the ISP data.
        #expect(await h.watcher.wait(timeout: .seconds(30)) { _ in topic.messages(on: h.aggregator.submissionInput).count >= 6 })
        for bytes in topic.messages(on: h.aggregator.submissionInput) {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            try SchemaCheck.validate(object, against: Submission.schemaName)
            #expect(object["device_signature"] == nil && object["isp_validation"] == nil)
        }
        let text = topic.messages(on: h.aggregator.submissionInput).map { String(decoding: $0, as: UTF8.self) }.joined()
        #expect(!text.contains(upper.uppercased()) && text.contains(upper))
    }

    @Test func everyErrorIsTypedJSON() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let authority = try await h.startAuthority("a")
        let (edge, client) = try await h.startEdge(
            "errors",
            [
                "HALLMARK_EDGE_MAX_BODY_BYTES": "4096", "HALLMARK_EDGE_ANSWER_WAIT_MS": "300",
                "HALLMARK_EDGE_READ_TIMEOUT_MS": "1000",
            ])
        defer { [authority, edge].forEach { $0.signal(SIGKILL) } }
        func expectError(_ answer: EdgeClient.Answer, _ status: Int, _ code: String, field: String? = nil) {
            #expect(answer.status == status, "\(String(decoding: answer.body, as: UTF8.self))")
            #expect(answer["error"] as? String == code && answer["reason"] is String)
            if let field { #expect(answer["field"] as? String == field) }
        }
        expectError(try await client.post("/api/v1/submit-legacy", Array("not json".utf8)), 400, "malformed")
        expectError(try await client.post("/api/v1/submit-legacy", Array("{}".utf8)), 400, "malformed")
        expectError(
            try await client.post("/api/v1/submit-legacy", Array(#"{"image_hash": "abc", "timestamp": 5}"#.utf8)), 400,
            "invalid_field")
        expectError(
            try await client.post("/api/v1/submit", Array(repeating: UInt8(ascii: " "), count: 5000)), 413, "too_large")
        expectError(try await client.get("/api/v1/submission/\(UUID().uuidString)"), 404, "not_found")
        expectError(try await client.get("/api/v1/submission/nope"), 404, "not_found")
        expectError(try await client.get("/no/such/route"), 404, "not_found")
        expectError(try await client.get("/api/v1/submit-legacy"), 405, "method_not_allowed")
        // A body that trickles: 408 at the read timeout, not a connection held for ever.
        let slow = try client.trickle(
            head: "POST /api/v1/submit HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n",
            sent: 10)
        #expect(slow.status == "HTTP/1.1 408 Request Timeout" && slow.body.contains("\"request_timeout\""), "\(slow)")
        // No aggregator here: a bundle the edge can read is published, and with no outcome within
        // the wait it is pending, then as pending from its receipt.
        let cam = try await h.provisioned("CAM-\(h.id)-pending")
        let pending = try await client.post(
            "/api/v1/submit-legacy",
            Self.piBundle(cam, hash: Self.hash(), token: try cam.packedToken(), timestamp: Int(Date().timeIntervalSince1970)))
        #expect(pending.status == 202 && pending["status"] as? String == "pending_validation")
        let receipt = try #require(pending["receipt_id"] as? String)
        let later = try await client.get("/api/v1/submission/\(receipt)")
        #expect(
            later.status == 200 && later["status"] as? String == "pending_validation" && later["receipt_id"] as? String == receipt
        )
        let health = try await client.get("/health")
        #expect(health.status == 200 && health["status"] as? String == "healthy")
    }

    /// Submissions are answered on the connection's event loop (SubmitHandler), the rest by
    /// the router: pipelined together they are answered in the order sent, refusals included,
    /// and the connection serves on; a body announced past the limit is refused at its head and
    /// the connection closed, its rest never read.
    @Test func pipelinedSubmissionsAreAnsweredInOrder() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let authority = try await h.startAuthority("a")
        let (edge, client) = try await h.startEdge(
            "ordered", ["HALLMARK_EDGE_MAX_BODY_BYTES": "4096", "HALLMARK_EDGE_ANSWER_WAIT_MS": "200"])
        defer { [authority, edge].forEach { $0.signal(SIGKILL) } }
        let cam = try await h.provisioned("CAM-\(h.id)-ordered")
        let now = Int(Date().timeIntervalSince1970)
        func post(_ path: String, _ body: [UInt8]) -> [UInt8] {
            Array(
                "POST \(path) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n".utf8
            )
                + body
        }
        var requests = post("/api/v1/submit-legacy", Array("{}".utf8))
        for path in ["/api/v1/submit-legacy", "/api/v1/submit-legacy?via=router", "/api/v1/submit-legacy"] {
            requests += post(path, Self.piBundle(cam, hash: Self.hash(), token: try cam.packedToken(), timestamp: now))
        }
        requests += Array("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        let ordered = try client.pipelined(requests, answers: 5)
        #expect(
            ordered.answers.map(\.status) == [
                "HTTP/1.1 400 Bad Request", "HTTP/1.1 202 Accepted", "HTTP/1.1 202 Accepted", "HTTP/1.1 202 Accepted",
                "HTTP/1.1 200 OK",
            ] && !ordered.closed)
        for answer in ordered.answers {
            #expect(answer.headers["content-type"] == "application/json" && answer.headers["server"] == "hallmark-edge")
        }

        let submits = try (0..<3).map { _ in
            post("/api/v1/submit-legacy", Self.piBundle(cam, hash: Self.hash(), token: try cam.packedToken(), timestamp: now))
        }
        let health = Array("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        let interleaved = try client.pipelined(
            submits[0] + health + submits[1] + post("/api/v1/submit?q=1", Array("{}".utf8)) + submits[2] + health, answers: 6)
        #expect(
            interleaved.answers.map(\.status) == [
                "HTTP/1.1 202 Accepted", "HTTP/1.1 200 OK", "HTTP/1.1 202 Accepted", "HTTP/1.1 400 Bad Request",
                "HTTP/1.1 202 Accepted", "HTTP/1.1 200 OK",
            ] && !interleaved.closed)
        let receipts = interleaved.answers.compactMap { try? JSONSerialization.jsonObject(with: Data($0.body)) as? [String: Any] }
            .compactMap { $0["receipt_id"] as? String }
        #expect(Set(receipts).count == 3)

        let announced = try client.pipelined(
            Array("POST /api/v1/submit HTTP/1.1\r\nHost: x\r\nContent-Length: 8388608\r\n\r\n".utf8), answers: 1,
            closeWait: 5_000)
        #expect(announced.answers.first?.status.hasPrefix("HTTP/1.1 413") == true && announced.closed, "\(announced)")
        #expect(announced.answers.first?.headers["connection"] == "close")
    }

    /// The per-client rate limit: a client past it is answered 429 with Retry-After at once,
    /// its reads are not limited, and behind a trusted proxy each forwarded address has its own.
    @Test func aClientPastItsRateLimitIs429() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let (edge, client) = try await h.startEdge(
            "limit",
            [
                "HALLMARK_EDGE_RATE_LIMIT": "3", "HALLMARK_EDGE_RATE_WINDOW_S": "600",
                "HALLMARK_EDGE_CLIENT_ADDRESS_HEADER": "X-Forwarded-For",
            ])
        defer { edge.signal(SIGKILL) }
        func post(from address: String) async throws -> EdgeClient.Answer {
            try await client.post("/api/v1/submit-legacy", Array("{}".utf8), headers: ["X-Forwarded-For": "10.0.0.9, \(address)"])
        }
        for _ in 0..<3 { #expect(try await post(from: "192.0.2.1").status == 400) }
        let limited = try await post(from: "192.0.2.1")
        #expect(limited.status == 429 && limited["error"] as? String == "rate_limited")
        #expect(Int(limited.header("Retry-After") ?? "") ?? 0 >= 1)
        #expect(try await post(from: "192.0.2.2").status == 400)
        #expect(try await client.get("/health").status == 200)
        // Limited submissions pipelined: each answered 429 as its head arrives, its body read and
        // dropped, and the connection serves on.
        let body = Array(#"{"image_hash": "00"}"#.utf8)
        let limitedPost = Array(
            "POST /api/v1/submit HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 192.0.2.1\r\nContent-Length: \(body.count)\r\n\r\n".utf8)
        let pipelined = try client.pipelined(
            limitedPost + body + limitedPost + body + Array("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".utf8), answers: 3)
        #expect(
            pipelined.answers.map(\.status) == [
                "HTTP/1.1 429 Too Many Requests", "HTTP/1.1 429 Too Many Requests", "HTTP/1.1 200 OK",
            ] && !pipelined.closed)
    }
}
