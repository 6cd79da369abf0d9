import Foundation
import HallmarkClient
import HallmarkCore
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// Every violation derived from the signer's input schemas, sent through the running signer:
/// each gets exactly one rejected record at once (with its reason and original) and, when its
/// id reads, one typed answer on its result topic; nothing is retried, and the signer keeps
/// answering.
@Suite("Signer schema violations", .serialized, .timeLimit(.minutes(6)))
struct SignerSchemaViolationTests {
    static let retried = "processing failed; retrying"

    @Test func everyDerivedViolationGetsOneTypedAnswerAtOnce() async throws {
        let h = try await SignerHarness(secrets: ["v1": "k"], signing: "v1")
        defer { Task { await h.close() } }
        let signAccepts: Set<String> = [SignRequest.schemaName]
        let verifyAccepts: Set<String> = [VerifyRequest.schemaName, SignResult.schemaName]
        let toSign = try ServiceViolations.derive(SignRequest.schemaName, accepted: signAccepts) + Self.issue10(signAccepts)
        let toVerify =
            try ServiceViolations.derive(VerifyRequest.schemaName, accepted: verifyAccepts)
            + ServiceViolations.derive(SignResult.schemaName, accepted: verifyAccepts) + Self.issue10Verify(verifyAccepts)
        // Each violation gets its rejected record and, when its id reads, a typed answer on its
        // result topic: a verify request a `malformed` verdict, a sign request a rejected sign
        // result (DESIGN §2).
        let (problems, invalid, signer) = try await Self.run(
            h, [(h.signInput, toSign), (h.verifyInput, toVerify)],
            typed: { sent, answer in
                let expected = verifyAccepts.contains(sent.schema) ? VerifyResult.schemaName : SignResult.schemaName
                return answer.message["schema"]?.string == expected && answer.message["reason"]?.string == "malformed"
                    && (expected == VerifyResult.schemaName || answer.message["status"]?.string == "rejected")
            }, answered: { $0.id != nil })
        #expect(toSign.count + toVerify.count > 250)
        #expect(problems.isEmpty, "\(problems.count) problems: \(problems.prefix(40))")
        #expect(invalid.isEmpty, "\(invalid.prefix(10))")
        #expect(signer.logCount(Self.retried) == 0)
        #expect(signer.process.isRunning)
    }

    /// DESIGN SIGN-1: a header name that is not a token, or a partner id the signer cannot key
    /// on, makes a verify request `malformed` — a verdict on the verify result topic, at once.
    @Test func requestsDESIGNCallsMalformedGetOneTypedAnswer() async throws {
        let h = try await SignerHarness(secrets: ["v1": "k"], signing: "v1")
        defer { Task { await h.close() } }
        let accepts: Set<String> = [VerifyRequest.schemaName, SignResult.schemaName]
        let cases = try [
            ServiceViolations.custom(VerifyRequest.schemaName, "a 100 KB partner id", accepted: accepts) {
                $0["headers"] = .object(["SmileID-Partner-ID": .string(String(repeating: "p", count: 100_000))])
            },
            ServiceViolations.custom(VerifyRequest.schemaName, "a header name that is not a token", accepted: accepts) {
                if case .object(var headers) = $0["headers"] {
                    headers["SmileID Partner"] = .string("002"); $0["headers"] = .object(headers)
                }
            },
        ]
        let (problems, invalid, signer) = try await Self.run(h, [(h.verifyInput, cases)]) { _, answer in
            answer.message["schema"]?.string == VerifyResult.schemaName && answer.message["reason"]?.string == "malformed"
        }
        #expect(invalid.isEmpty && signer.logCount(Self.retried) == 0)
        #expect(problems.isEmpty, "\(problems)")
    }

    /// Sends each list to its topic on one key, then a sentinel, and judges every answer.
    static func run(
        _ h: SignerHarness, _ inputs: [(topic: String, sent: [ServiceViolations.Sent])],
        typed: @escaping (ServiceViolations.Sent, ServiceViolations.Answer) -> Bool = { _, _ in false },
        answered: @escaping (ServiceViolations.Sent) -> Bool = { _ in false }
    )
        async throws -> (problems: [String], invalid: [String], signer: ServiceProcess)
    {
        let watcher = try AnswerWatcher(
            kafka: h.kafka, topics: [h.signOutput, h.verifyOutput, h.rejected],
            fromStart: true, logger: h.logger)
        let reader = Task { await watcher.run() }
        defer { reader.cancel() }
        let signer = try await h.startSigner("violations")
        let all = try await ServiceViolations.send(inputs, producer: h.producer)
        let topics = [h.signOutput, h.verifyOutput, h.rejected], sent = all
        _ = await watcher.wait(timeout: .seconds(180)) { w in
            ServiceViolations.answers(to: sent, outputs: w.outputs(on: topics)).byIndex.allSatisfy { !$0.isEmpty }
        }
        let (answers, invalid) = ServiceViolations.answers(to: all, outputs: watcher.outputs(on: topics))
        await watcher.close()
        return (ServiceViolations.problems(all, answers, typed: typed, answered: answered), invalid, signer)
    }

    /// The sign-input cases issue #10 §3 found accepted.
    static func issue10(_ accepts: Set<String>) throws -> [ServiceViolations.Sent] {
        let s = SignRequest.schemaName
        return try [
            ServiceViolations.custom(s, "an extra top-level field", accepted: accepts) {
                $0["image_hash"] = .string(String(repeating: "a", count: 64))
            },
            ServiceViolations.custom(s, "body_b64 YQ===", accepted: accepts) { $0["body_b64"] = .string("YQ===") },
            ServiceViolations.custom(s, "timestamp 2025-02-30", accepted: accepts) {
                $0["timestamp"] = .string("2025-02-30T00:00:00.000Z")
            },
            ServiceViolations.custom(s, "timestamp year 0000", accepted: accepts) {
                $0["timestamp"] = .string("0000-01-01T00:00:00.000Z")
            },
            ServiceViolations.custom(s, "timestamp year 99999", accepted: accepts) {
                $0["timestamp"] = .string("99999-01-01T00:00:00.000Z")
            },
            ServiceViolations.custom(s, "timestamp +05:30", accepted: accepts) {
                $0["timestamp"] = .string("2025-01-01T00:00:00+05:30")
            },
            ServiceViolations.custom(s, "produced_at +05:30", accepted: accepts) {
                $0["produced_at"] = .string("2025-01-01T05:30:00+05:30")
            },
            ServiceViolations.custom(s, "method \"\"", accepted: accepts) { $0["method"] = .string("") },
            ServiceViolations.custom(s, "a NUL in the partner id", accepted: accepts) {
                $0["headers"] = .object(["SmileID-Partner-ID": .string("00\u{0}2")])
            },
        ]
    }

    static func issue10Verify(_ accepts: Set<String>) throws -> [ServiceViolations.Sent] {
        let v = VerifyRequest.schemaName
        return try [
            ServiceViolations.custom(v, "method \"\"", accepted: accepts) { $0["method"] = .string("") },
            ServiceViolations.custom(v, "a NUL in the partner id", accepted: accepts) {
                $0["headers"] = .object(["SmileID-Partner-ID": .string("00\u{0}2")])
            },
            ServiceViolations.custom(v, "body_b64 YQ===", accepted: accepts) { $0["body_b64"] = .string("YQ===") },
        ]
    }
}
