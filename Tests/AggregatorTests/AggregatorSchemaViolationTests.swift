import Foundation
import HallmarkClient
import HallmarkCore
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// Every violation derived from the aggregator's input schemas, plus hand-made hostile ones,
/// sent through the running aggregator: each gets exactly one typed answer at once (a
/// `rejected`/`malformed` submission or verification result, or a rejected record for what has
/// no readable envelope), nothing is retried, no token request is made for any of them, and
/// the aggregator still logs a good bundle afterwards.
@Suite("Aggregator schema violations", .serialized, .timeLimit(.minutes(6)))
struct AggregatorSchemaViolationTests {
    @Test func everyBadInputGetsOneTypedAnswerAtOnce() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let (authority, aggregator) = try await h.startBoth()
        defer { [authority, aggregator].forEach { $0.signal(SIGKILL) } }
        let g = h.aggregator
        let submission: Set<String> = [Submission.schemaName], verify: Set<String> = [LogVerifyRequest.schemaName]
        let inputs: [(topic: String, sent: [ServiceViolations.Sent])] = try [
            (g.submissionInput, ServiceViolations.derive(Submission.schemaName, accepted: submission) + Self.hostile(submission)),
            (g.verifyInput, ServiceViolations.derive(LogVerifyRequest.schemaName, accepted: verify)),
            (g.claimInput, ServiceViolations.derive(ModificationClaim.schemaName, accepted: [ModificationClaim.schemaName])),
        ]
        let all = try await ServiceViolations.send(inputs, producer: h.producer)
        let topics = [g.submissionOutput, g.verifyOutput, g.claimOutput, h.rejected], sent = all
        _ = await h.watcher.wait(timeout: .seconds(180)) { w in
            ServiceViolations.answers(to: sent, outputs: w.outputs(on: topics)).byIndex.allSatisfy { !$0.isEmpty }
        }
        let (answers, invalid) = ServiceViolations.answers(to: all, outputs: h.watcher.outputs(on: topics))
        let problems = ServiceViolations.problems(all, answers) { s, answer in Self.isMalformedAnswer(s, answer) }
        #expect(all.count >= 200)
        #expect(problems.isEmpty, "\(problems.count) problems: \(problems.prefix(40))")
        #expect(invalid.isEmpty, "\(invalid.prefix(10))")
        #expect(h.watcher.messages(on: h.authority.tokenInput).isEmpty, "a bad submission reached the authority")
        #expect(aggregator.logCount("processing failed; retrying") == 0)
        #expect(aggregator.process.isRunning)

        // Still working: a good bundle is logged.
        let cam = try await h.provisioned("CAM-\(h.id)")
        let good = try await h.submit(
            try cam.submission(
                .flatBundle,
                hashes: [
                    .init(
                        imageHash: String(repeating: "ab", count: 32),
                        modificationLevel: 0)
                ]))
        #expect(good.status == .accepted)
    }

    /// A `rejected`/`malformed` answer of the sent document's own kind.
    static func isMalformedAnswer(_ s: ServiceViolations.Sent, _ answer: ServiceViolations.Answer) -> Bool {
        let rejected = answer.message["status"] == .string("rejected") && answer.message["reason"] == .string("malformed")
        switch (s.schema, answer.message["schema"]?.string) {
        case (Submission.schemaName, SubmissionResult.schemaName?), (LogVerifyRequest.schemaName, LogVerifyResult.schemaName?),
            (ModificationClaim.schemaName, ModificationResult.schemaName?):
            return rejected
        default:
            return false
        }
    }

    /// What a hostile producer might send that the derived violations do not: upper-case and
    /// short hashes, five hashes, a hash for the authority's eyes, tokens in two formats, a
    /// 100 KB field, NULs, impossible dates.
    static func hostile(_ accepts: Set<String>) throws -> [ServiceViolations.Sent] {
        let s = Submission.schemaName
        let hash = JSONValue.string(String(repeating: "ab", count: 32))
        func entry(_ h: JSONValue) -> JSONValue { .object(["image_hash": h, "modification_level": .number("0")]) }
        return try [
            ServiceViolations.custom(s, "upper-case image hash", accepted: accepts) {
                $0["image_hashes"] = .array([entry(.string(String(repeating: "AB", count: 32)))])
            },
            ServiceViolations.custom(s, "a 63-digit image hash", accepted: accepts) {
                $0["image_hashes"] = .array([entry(.string(String(repeating: "a", count: 63)))])
            },
            ServiceViolations.custom(s, "five image hashes", accepted: accepts) {
                $0["image_hashes"] = .array(Array(repeating: entry(hash), count: 5))
            },
            ServiceViolations.custom(s, "no image hashes", accepted: accepts) { $0["image_hashes"] = .array([]) },
            ServiceViolations.custom(s, "modification level 256", accepted: accepts) {
                $0["image_hashes"] = .array([.object(["image_hash": hash, "modification_level": .number("256")])])
            },
            ServiceViolations.custom(s, "both token formats", accepted: accepts, example: 1) {
                $0["encrypted_nuc_token"] = .string(String(repeating: "A", count: 80))
                $0["table_references"] = .array([.number("1"), .number("2"), .number("3")])
                $0["key_indices"] = .array([.number("1"), .number("2"), .number("3")])
            },
            ServiceViolations.custom(s, "an unknown field", accepted: accepts) { $0["device_serial"] = .string("CAM-1") },
            ServiceViolations.custom(s, "a 100 KB gps_hash", accepted: accepts) {
                $0["gps_hash"] = .string(String(repeating: "a", count: 100_000))
            },
            ServiceViolations.custom(s, "a NUL in the id", accepted: accepts) { $0["id"] = .string("\u{0}") },
            ServiceViolations.custom(s, "produced_at 2025-02-30", accepted: accepts) {
                $0["produced_at"] = .string("2025-02-30T00:00:00.000Z")
            },
            ServiceViolations.custom(s, "timestamp 0", accepted: accepts) { $0["timestamp"] = .number("0") },
            ServiceViolations.custom(s, "timestamp -1", accepted: accepts) { $0["timestamp"] = .number("-1") },
            ServiceViolations.custom(s, "timestamp 1e3", accepted: accepts) { $0["timestamp"] = .number("1e3") },
        ]
    }
}
