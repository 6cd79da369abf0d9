import AggregatorCore
import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkSubprocess
import HallmarkTestSupport
import Testing

/// The edge's `/ops` dashboard on the real broker, with an authority, an aggregator and the
/// edge taking camera traffic: the page and its files are served with a strict policy, its data
/// only with the bearer token, and the data shows what the traffic did (each stage's
/// throughput, the log's size, the rejections and the security events). Then headless
/// Chromium loads the page and its charts draw those values. An edge without a token has no
/// `/ops` at all.
@Suite("Edge ops page", .serialized, .timeLimit(.minutes(5)))
struct EdgeOpsTests {
    @Test func theDashboardShowsWhatTheTrafficDid() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let token = Hex.encode(try SecureRandom.bytes(32))
        let tokenFile = FileManager.default.temporaryDirectory.appendingPathComponent("ops-token-\(h.id)")
        try Data("\(token)\n".utf8).write(to: tokenFile)
        defer { try? FileManager.default.removeItem(at: tokenFile) }
        let fast = ["HALLMARK_METRICS_INTERVAL_MS": "1000", "HALLMARK_SECURITY_TOPIC": h.security]
        let (authority, aggregator) = try await h.startBoth(fast)
        let (edge, client) = try await h.startEdge(
            "ops", fast.merging(["HALLMARK_EDGE_OPS_TOKEN_FILE": tokenFile.path]) { _, new in new })
        let (plain, plainClient) = try await h.startEdge("plain")
        defer { [authority, aggregator, edge, plain].forEach { $0.signal(SIGKILL) } }

        // The page and its files: no token needed, no data in them, a strict policy.
        for (path, type) in [("/ops", "text/html"), ("/ops/ops.js", "text/javascript"), ("/ops/ops.css", "text/css")] {
            let answer = try await client.get(path)
            #expect(answer.status == 200 && answer.header("Content-Type")?.hasPrefix(type) == true, "\(path)")
            #expect(answer.header("Content-Security-Policy")?.hasPrefix("default-src 'none'; script-src 'self'") == true)
            #expect(answer.header("X-Content-Type-Options") == "nosniff")
        }
        // The data: 401 without the token or with another, never a hint of it.
        let refusals = [
            [:], ["Authorization": "Bearer " + String(token.reversed())], ["Authorization": token],
            ["Authorization": "Basic " + token], ["Authorization": "Bearer"], ["Authorization": "Bearer x\(token)"],
        ]
        for headers in refusals {
            let refused = try await client.get("/ops/data", headers: headers)
            #expect(refused.status == 401 && refused["error"] as? String == "unauthorized", "\(headers)")
            #expect(refused.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            #expect(!String(decoding: refused.body, as: UTF8.self).contains(token))
        }
        // The scheme is case-insensitive (RFC 9110 §11.1), and spaces may follow it.
        for scheme in ["bearer ", "BEARER ", "bEaReR   "] {
            let answer = try await client.get("/ops/data", headers: ["Authorization": scheme + token])
            #expect(answer.status == 200, "\(scheme)")
        }
        // No token configured: no page.
        #expect(try await plainClient.get("/ops").status == 404)
        #expect(try await plainClient.get("/ops/data", headers: ["Authorization": "Bearer \(token)"]).status == 404)

        // The page reads the topics from when its consumer got its partitions: wait until it
        // has seen the aggregator's snapshots (both topics come in the one assignment), or the
        // one-off security event below could be published before it reads and never be seen
        // (CI saw that), and the rejection could fall before the first snapshot it has.
        let bearer = ["Authorization": "Bearer \(token)"]
        #expect(
            try await eventually(timeout: .seconds(60)) {
                let instances = (try await client.get("/ops/data", headers: bearer)["instances"] as? [[String: Any]]) ?? []
                return instances.contains { $0["instance"] as? String == "g" }
            })

        // Traffic: three photos through the edge, one broken submission straight to the
        // aggregator's topic (a rejection), and a security event.
        let cam = try await h.provisioned("CAM-\(h.id)-ops")
        let now = Int(Date().timeIntervalSince1970)
        for _ in 0..<3 {
            let submitted = try await client.post(
                "/api/v1/submit-legacy",
                EdgeSubmissionTests.piBundle(cam, hash: EdgeSubmissionTests.hash(), token: try cam.packedToken(), timestamp: now))
            #expect(try await client.outcome(submitted)["status"] as? String == "accepted")
        }
        try await h.producer.send(topic: h.aggregator.submissionInput, key: nil, value: Array("{not json".utf8))
        let event = Message(SecurityEvent(service: "gateway", instance: "test", event: .replayedRequest, severity: .warning))
        try await h.producer.send(topic: h.security, key: nil, value: try JSONCoding.encode(event))

        var missing = ["no answer"]
        _ = try await eventually(timeout: .seconds(60)) {
            missing = try await client.get("/ops/data", headers: bearer).json.map(Self.trafficMissing) ?? ["no answer"]
            return missing.isEmpty
        }
        #expect(missing.isEmpty, "the page never showed \(missing)")
        let answer = try await client.get("/ops/data", headers: bearer)
        #expect(answer.header("Cache-Control") == "no-store")
        let instances = (answer["instances"] as? [[String: Any]] ?? []).compactMap { $0["instance"] as? String }
        #expect(Set(["g", "ops"]).isSubset(of: Set(instances)), "\(instances)")

        // A browser: headless Chromium loads the page with the token in its fragment, and its
        // charts draw the stages, the log and the security events.
        let check = try await Subprocess.run(
            "/usr/bin/python3",
            [
                Self.root.appendingPathComponent("Tests/Verifiers/ops_page_check.py").path, "--url",
                "http://127.0.0.1:\(client.port)/ops",
                "--token", token, "--expect-chart", "throughput", "--expect-chart", "log", "--expect-chart", "security",
                "--expect-series-min", "1",
            ])
        #expect(check.status == 0, "\(check.output)")
        // Another token: the page says it was refused, shows the form and draws nothing.
        let refused = try await Subprocess.run(
            "/usr/bin/python3",
            [
                Self.root.appendingPathComponent("Tests/Verifiers/ops_page_check.py").path, "--url",
                "http://127.0.0.1:\(client.port)/ops", "--token", String(token.reversed()), "--expect-refused",
            ])
        #expect(refused.status == 0, "\(refused.output)")
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// What the data does not show yet of the traffic: the aggregator's stages moving, the log at
    /// three leaves or more, a rejection and the replayed-request event.
    static func trafficMissing(_ data: [String: Any]) -> [String] {
        let stages = data["stages"] as? [[String: Any]] ?? []
        let moving = stages.contains { stage in
            stage["service"] as? String == "aggregator"
                && (stage["points"] as? [[String: Any]] ?? []).contains { ($0["out_per_second"] as? Double ?? 0) > 0 }
        }
        let sizes = (data["log"] as? [String: Any])?["tree_size"] as? [[String: Any]] ?? []
        let rejections = data["rejections_per_minute"] as? [[String: Any]] ?? []
        let events = data["security_events"] as? [[String: Any]] ?? []
        let shown = [
            "the aggregator's stages moving": moving,
            "three leaves": sizes.contains { ($0["value"] as? Double ?? 0) >= 3 },
            "a rejection": rejections.contains { ($0["value"] as? Double ?? 0) > 0 },
            "the security event": events.contains {
                $0["kind"] as? String == "replayed_request" && $0["service"] as? String == "gateway"
            },
        ]
        return shown.filter { !$0.value }.map(\.key).sorted()
    }
}
