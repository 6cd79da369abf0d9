import HallmarkTestSupport
import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import SignerCore
import Testing

/// DESIGN §2: the signer raises a security event for each bad MAC and replay, limited per
/// partner and window (then one summary with the count), and over all partners, so a flood of
/// bad requests cannot flood `hallmark.security`. Through the running signer.
@Suite("Signer security events", .serialized, .timeLimit(.minutes(10)))
struct SignerSecurityEventTests {
    static let allowedMembers: Set<String> = [
        "schema", "id", "produced_at", "service", "instance", "event", "severity",
        "request_id", "reason", "partner_id", "count", "window_seconds",
    ]

    @Test func badMACsAndReplaysRaiseEventsUpToAPartnerLimitThenOneSummary() async throws {
        let h = try await SignerHarness(secrets: ["v1": "k"], signing: "v1")
        defer { Task { await h.close() } }
        let signer = try await h.startSigner(
            "events",
            [
                "HALLMARK_SIGNER_EVENTS_PER_PARTNER": "3", "HALLMARK_SIGNER_ALERT_WINDOW_SECONDS": "10",
                "HALLMARK_SIGNER_ALERT_REJECTIONS": "1000",
            ])
        let body = Data(#"{"job":"flood"}"#.utf8)
        var flood: [Message<VerifyRequest>] = []
        for _ in 0..<10 {
            flood.append(Fixtures.verify(try Fixtures.signedHeaders(secret: "wrong", partner: "flood", body: body), body: body))
        }
        let quiet = Fixtures.verify(try Fixtures.signedHeaders(secret: "wrong", partner: "quiet", body: body), body: body)
        let good = try Fixtures.signedHeaders(secret: "k", partner: "replayer", body: body)
        let replays = (0..<3).map { _ in Fixtures.verify(good, body: body) }
        for r in flood { try await h.send(h.verifyInput, key: "flood", message: r) }
        try await h.send(h.verifyInput, key: "quiet", message: quiet)
        for r in replays { try await h.send(h.verifyInput, key: "replayer", message: r) }
        let all = flood + [quiet] + replays
        let results = try await h.results(h.verifyOutput, for: all.map(\.id))
        #expect((flood + [quiet]).allSatisfy { results[$0.id]?.first?["reason"] as? String == "bad_mac" })
        #expect(
            replays.map { results[$0.id]?.first?["reason"] as? String ?? "accepted" }.sorted()
                == ["accepted", "replay", "replay"])

        // The flood's summary comes when its window ends; the events are keyed by partner, so
        // they arrive on several partitions, each at its own pace: wait for every kind expected.
        let events = try await h.read(h.security, timeout: .seconds(60)) { events in
            func has(_ kind: String, _ partner: String, _ n: Int) -> Bool {
                events.filter { $0["event"] as? String == kind && $0["partner_id"] as? String == partner }.count >= n
            }
            return has("events_suppressed", "flood", 1) && has("bad_mac", "quiet", 1) && has("replayed_request", "replayer", 2)
        }
        func of(_ kind: String, _ partner: String) -> [[String: Any]] {
            events.filter { $0["event"] as? String == kind && $0["partner_id"] as? String == partner }
        }
        #expect(of("bad_mac", "flood").count == 3)
        #expect(of("events_suppressed", "flood").map { $0["count"] as? Int } == [7])
        #expect(of("events_suppressed", "flood").first?["window_seconds"] as? Int == 10)
        #expect(of("bad_mac", "quiet").count == 1)
        #expect(of("replayed_request", "replayer").count == 2)
        #expect(Set(of("bad_mac", "flood").compactMap { $0["request_id"] as? String }).isSubset(of: flood.map(\.id.text)))
        #expect(of("bad_mac", "quiet").first?["request_id"] as? String == quiet.id.text)
        #expect(of("replayed_request", "replayer").allSatisfy { $0["reason"] as? String == "replay" })
        #expect(of("bad_mac", "flood").allSatisfy { $0["reason"] as? String == "bad_mac" })
        #expect(!events.contains { $0["event"] as? String == "rejection_rate" })

        // Partner and reason only: never the MAC, a header or the body.
        let secrets = Set(
            (flood + [quiet] + replays).flatMap { r in
                [r.headers["SmileID-Request-Mac"]!, r.bodyB64, r.headers["SmileID-Request-Timestamp"]!]
            })
        for event in events {
            #expect(Set(event.keys).isSubset(of: Self.allowedMembers), "\(event.keys.sorted())")
            let text = String(decoding: try JSONSerialization.data(withJSONObject: event), as: UTF8.self)
            #expect(!secrets.contains { text.contains($0) || text.contains($0.replacingOccurrences(of: "/", with: "\\/")) })
            #expect(event["device_serial"] == nil)
            try SchemaCheck.validate(event, against: SecurityEvent.schemaName)
        }
        #expect(signer.process.isRunning)
    }

    /// Partner ids are the client's to choose: over all partners, at most the service-wide
    /// number of events per window, then one summary without a partner.
    @Test func manyPartnersCannotFloodTheTopicEither() async throws {
        let h = try await SignerHarness(secrets: ["v1": "k"], signing: "v1")
        defer { Task { await h.close() } }
        let signer = try await h.startSigner(
            "spread",
            [
                "HALLMARK_SIGNER_EVENTS_PER_PARTNER": "3", "HALLMARK_SIGNER_EVENTS_PER_WINDOW": "5",
                "HALLMARK_SIGNER_ALERT_WINDOW_SECONDS": "10", "HALLMARK_SIGNER_ALERT_REJECTIONS": "1000",
            ])
        let body = Data("x".utf8)
        var requests: [Message<VerifyRequest>] = []
        for i in 0..<12 {
            requests.append(
                Fixtures.verify(
                    try Fixtures.signedHeaders(secret: "wrong", partner: "p-\(i)", body: body),
                    body: body))
        }
        for r in requests { try await h.send(h.verifyInput, key: "spread", message: r) }
        let results = try await h.results(h.verifyOutput, for: requests.map(\.id))
        #expect(results.count == 12)
        let events = try await h.read(h.security, timeout: .seconds(60)) { events in
            events.contains { $0["event"] as? String == "events_suppressed" }
        }
        #expect(events.filter { $0["event"] as? String == "bad_mac" }.count == 5)
        let summary = events.filter { $0["event"] as? String == "events_suppressed" }
        #expect(summary.count == 1)
        #expect(summary.first?["count"] as? Int == 7)
        #expect(summary.first?["partner_id"] == nil)
        for event in events { try SchemaCheck.validate(event, against: SecurityEvent.schemaName) }
        #expect(signer.process.isRunning)
    }
}
