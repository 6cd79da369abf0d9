import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import HallmarkPostgres
import HallmarkTestSupport
import Testing

/// The runtime's request/reply between stages, through the real broker and PostgreSQL, with the
/// reference pair (`hallmark probe-ask`) asking the probe: every ask gets its answer once its
/// reply joins the pending request, also when the requester is SIGKILLed between request and
/// reply; unanswered requests are re-sent under the same id and then given up with a typed
/// outcome; late replies are ignored.
@Suite("Request/reply between stages", .serialized, .timeLimit(.minutes(6)))
struct RequestReplyIntegrationTests {
    struct Pair {
        let h: StageHarness
        var asks: String { "test.ask.\(h.id).asks" }
        var replies: String { "test.ask.\(h.id).replies" }
        var answers: String { "test.ask.\(h.id).answers" }
        var schema: String { "ask_\(h.id)" }

        init() async throws {
            h = try await StageHarness()
            try await KafkaAdmin(configuration: h.kafka, logger: h.logger).createTopics([asks, replies, answers], partitions: 4)
        }

        /// The requester (asker, joiner and retrier in one process), asking the harness's probe input.
        func startAsker(_ name: String, _ extra: [String: String] = [:]) throws -> ServiceProcess {
            try ServiceProcess(
                "hallmark", arguments: ["probe-ask"], name: "\(h.id)-\(name)",
                environment: [
                    "HALLMARK_PROBE_ASK_INPUT": asks, "HALLMARK_PROBE_ASK_REQUESTS": h.input,
                    "HALLMARK_PROBE_ASK_REPLIES": replies, "HALLMARK_PROBE_ASK_ANSWERS": answers,
                    "HALLMARK_PROBE_ASK_SCHEMA": schema, "HALLMARK_GROUP_ID": "test-ask-\(h.id)",
                    "HALLMARK_REJECTED_TOPIC": h.rejected, "HALLMARK_INSTANCE": name, "HALLMARK_METRICS_TOPIC": h.metrics,
                    "HALLMARK_LOG_LEVEL": "info",
                ].merging(extra) { _, new in new })
        }

        /// The responder: the probe, allowed to answer on the pair's reply topic.
        func startResponder() throws -> ServiceProcess {
            try h.startProbe("responder", ["HALLMARK_REPLY_TOPICS": replies])
        }

        /// Sends `count` asks over 10 keys; returns their ids and numbers.
        func ask(_ count: Int) async throws -> [String: Int] {
            var asked: [String: Int] = [:]
            for i in 0..<count {
                let id = MessageID.random()
                asked[id.text] = 1000 + i
                try await h.producer.send(
                    topic: asks, key: Array("k\(i % 10)".utf8),
                    value: StageHarness.request(n: 1000 + i, id: id))
            }
            return asked
        }

        /// Answers by ask id (every copy), read until each ask has one.
        func answers(
            for asked: [String: Int], timeout: Duration = .seconds(120)
        ) async throws -> [String: [Message<ProbeResult>]] {
            var seen = Set<String>()
            let messages = try await h.read(answers, timeout: timeout) { messages in
                if let last = messages.last, let r = try? JSONCoding.decode(Message<ProbeResult>.self, from: last.value),
                    let correlationID = r.correlationID, asked[correlationID] != nil
                {
                    seen.insert(correlationID)
                }
                return seen.count == asked.count
            }
            return try Dictionary(
                grouping: messages.map { try JSONCoding.decode(Message<ProbeResult>.self, from: $0.value) },
                by: { try #require($0.correlationID, "an answer without a correlation_id") })
        }

        func pendingRows() async throws -> Int {
            let rows = try await h.pool.query("SELECT count(*)::bigint FROM \(unescaped: schema).hallmark_pending")
            return Int(try rows[0].column(0, as: Int64.self))
        }
    }

    /// Every answer of an ask carries its number and one id (copies are at-least-once
    /// re-sends of the same answer, never a second one).
    func checkAnswered(_ asked: [String: Int], _ answers: [String: [Message<ProbeResult>]], outcome: String?) {
        for (id, n) in asked {
            let copies = answers[id] ?? []
            #expect(!copies.isEmpty, "ask \(id) unanswered")
            #expect(copies.allSatisfy { $0.n == n && $0.outcome == outcome }, "ask \(id) answered wrongly")
            #expect(Set(copies.map(\.id)).count <= 1, "ask \(id) got two different answers")
        }
        #expect(Set(answers.keys).isSubset(of: Set(asked.keys)))
    }

    @Test func everyAskIsAnsweredThroughTheOtherStage() async throws {
        let p = try await Pair()
        let responder = try p.startResponder()
        let asker = try p.startAsker("asker")
        let asked = try await p.ask(300)
        checkAnswered(asked, try await p.answers(for: asked), outcome: nil)
        try await p.h.wait("no pending request left", timeout: .seconds(30)) { try await p.pendingRows() == 0 }
        for process in [asker, responder] { process.signal(SIGTERM) }
        #expect(await asker.waitForExit(timeout: .seconds(30)) == 0)
        #expect(await responder.waitForExit(timeout: .seconds(30)) == 0)
        await p.h.close()
    }

    @Test func requesterKilledBetweenRequestAndReplyLosesNothing() async throws {
        let p = try await Pair()
        // Neither re-sent nor given up while the test looks (a loaded machine once took longer
        // than the default 30 s give-up to see the 200 requests): the restart must answer them.
        let patient = ["HALLMARK_PROBE_ASK_RESEND_MS": "600000", "HALLMARK_PROBE_ASK_GIVE_UP_MS": "3600000"]
        let asker = try p.startAsker("first", patient)
        let asked = try await p.ask(200)
        // Every request is out, none answered (no responder yet): kill the requester now.
        var requestIDs = Set<String>()
        _ = try await p.h.read(p.h.input, timeout: .seconds(120)) { messages in
            if let id = messages.last.flatMap({ StageHarness.field("id", in: $0.value) }) { requestIDs.insert(id) }
            return requestIDs.count == 200
        }
        asker.signal(SIGKILL)
        _ = await asker.waitForExit(timeout: .seconds(10))
        #expect(try await p.pendingRows() == 200)
        let responder = try p.startResponder()
        try await p.h.waitForEffects(200)
        let restarted = try p.startAsker("second", patient)
        let answers = try await p.answers(for: asked)
        checkAnswered(asked, answers, outcome: nil)
        try await p.h.wait("no pending request left", timeout: .seconds(30)) { try await p.pendingRows() == 0 }
        for process in [restarted, responder] { process.signal(SIGTERM) }
        _ = await restarted.waitForExit(timeout: .seconds(30))
        _ = await responder.waitForExit(timeout: .seconds(30))
        await p.h.close()
    }

    @Test func unansweredRequestsAreResentThenGivenUpAndLateRepliesIgnored() async throws {
        let p = try await Pair()
        let asker = try p.startAsker("patient", ["HALLMARK_PROBE_ASK_RESEND_MS": "300", "HALLMARK_PROBE_ASK_GIVE_UP_MS": "3000"])
        let asked = try await p.ask(20)
        checkAnswered(asked, try await p.answers(for: asked), outcome: "timed_out")
        // Re-sent under the same message ids while it waited.
        let requests = try await p.h.readAll(p.h.input, sentinels: false)  // the probe consumes it
        let ids = requests.compactMap { StageHarness.field("id", in: $0.value) }
        #expect(Set(ids).count == 20)
        #expect(ids.count > 20, "no request was re-sent")
        // The responder answers them now: every reply is late and joins nothing.
        let responder = try p.startResponder()
        try await p.h.waitForEffects(20)
        try await p.h.wait("late replies counted", timeout: .seconds(60)) {
            asker.logCount("reply joins no pending request") >= 20
        }
        let all = try await p.h.readAll(p.answers)
        let late = try all.map { try JSONCoding.decode(Message<ProbeResult>.self, from: $0.value) }.filter { $0.outcome == nil }
        #expect(late.isEmpty, "a late reply produced an answer")
        #expect(try await p.pendingRows() == 0)
        for process in [asker, responder] { process.signal(SIGTERM) }
        _ = await asker.waitForExit(timeout: .seconds(30))
        _ = await responder.waitForExit(timeout: .seconds(30))
        await p.h.close()
    }
}
