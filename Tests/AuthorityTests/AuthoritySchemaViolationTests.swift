import Foundation
import HallmarkClient
import HallmarkCore
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// Every violation derived from the authority's input schemas, sent through the running
/// authority: each gets exactly one typed answer at once — a `malformed` token or provisioning
/// result, or a rejected record (admin commands, broken envelopes), and a privacy request with
/// a readable id both a rejected record and a `rejected` privacy result — nothing is retried,
/// and every answer meets its own schema.
@Suite("Authority schema violations", .serialized, .timeLimit(.minutes(6)))
struct AuthoritySchemaViolationTests {
    @Test func everyDerivedViolationGetsOneTypedAnswerAtOnce() async throws {
        let h = try await AuthorityHarness()
        defer { Task { await h.close() } }
        let authority = try await h.start("violations")
        let c = h.configuration
        let provision: Set<String> = [ProvisionRequest.schemaName], admin: Set<String> = [AdminCommand.schemaName]
        let token: Set<String> = [TokenRequest.schemaName], privacy: Set<String> = [PrivacyRequest.schemaName]
        let inputs: [(topic: String, sent: [ServiceViolations.Sent])] = try [
            (
                c.provisionInput,
                ServiceViolations.derive(ProvisionRequest.schemaName, accepted: provision) + Self.issue10Provision(provision)
            ),
            (c.adminInput, ServiceViolations.derive(AdminCommand.schemaName, accepted: admin) + Self.issue10Admin(admin)),
            (c.tokenInput, ServiceViolations.derive(TokenRequest.schemaName, accepted: token) + Self.issue10Token(token)),
            (c.privacy.requests, ServiceViolations.derive(PrivacyRequest.schemaName, accepted: privacy)),
        ]
        let all = try await ServiceViolations.send(inputs, producer: h.producer)
        let topics = [c.provisionOutput, c.tokenOutput, c.privacy.results, h.rejected], sent = all
        _ = await h.watcher.wait(timeout: .seconds(180)) { w in
            zip(sent, ServiceViolations.answers(to: sent, outputs: w.outputs(on: topics)).byIndex).allSatisfy { s, found in
                !found.isEmpty && (!Self.mustBeAnswered(s) || found.contains { !$0.isRejection })
            }
        }
        let (answers, invalid) = ServiceViolations.answers(to: all, outputs: h.watcher.outputs(on: topics))
        // A privacy request whose id reads is answered on the results topic too (DESIGN §2).
        let problems = ServiceViolations.problems(all, answers, typed: Self.isMalformedAnswer, answered: Self.mustBeAnswered)
        #expect(all.count > 280)
        #expect(problems.isEmpty, "\(problems.count) problems: \(problems.prefix(40))")
        #expect(invalid.isEmpty, "\(invalid.prefix(10))")
        #expect(authority.logCount("processing failed; retrying") == 0)
        #expect(authority.process.isRunning)
        // Token and provisioning requests the processor sees are answered `malformed` on their
        // own topics, [3,3,3] included.
        // (Admin commands go to the rejected topic only; privacy requests to both.)
        let answeredOnTheirTopic: Set<String> = [TokenRequest.schemaName, ProvisionRequest.schemaName]
        for (s, found) in zip(all, answers) where s.reachesTheProcessor && answeredOnTheirTopic.contains(s.schema) {
            #expect(found.contains { !$0.isRejection && Self.isMalformedAnswer(s, $0) }, "\(s.label)")
        }
    }

    /// Whether a document must be answered on its result topic besides its rejected record: a
    /// privacy request whose id reads (DESIGN §2).
    static func mustBeAnswered(_ s: ServiceViolations.Sent) -> Bool {
        s.schema == PrivacyRequest.schemaName && s.id != nil
    }

    /// A `malformed` verdict or provisioning answer to the document sent, or a privacy request's
    /// `rejected` result.
    static func isMalformedAnswer(_ s: ServiceViolations.Sent, _ answer: ServiceViolations.Answer) -> Bool {
        switch (s.schema, answer.message["schema"]?.string) {
        case (TokenRequest.schemaName, TokenResult.schemaName?):
            return answer.message["valid"] == .bool(false) && answer.message["reason"] == .string("malformed")
        case (ProvisionRequest.schemaName, ProvisionResult.schemaName?):
            return answer.message["status"] == .string("rejected") && answer.message["reason"] == .string("malformed")
        case (PrivacyRequest.schemaName, PrivacyResult.schemaName?):
            let reasons: Set<String> = ["malformed", "unsigned_request", "oversized"]
            return answer.message["status"] == .string("rejected") && reasons.contains(answer.message["reason"]?.string ?? "")
        default:
            return false
        }
    }

    static func issue10Provision(_ accepts: Set<String>) throws -> [ServiceViolations.Sent] {
        let p = ProvisionRequest.schemaName
        return try [
            ServiceViolations.custom(p, "an extra top-level field", accepted: accepts) { $0["owner"] = .string("x") },
            ServiceViolations.custom(p, "an image hash", accepted: accepts) {
                $0["image_hash"] = .string(String(repeating: "a", count: 64))
            },
            ServiceViolations.custom(p, "upper-case nuc_hash", accepted: accepts) {
                $0["nuc_hash"] = .string(String(repeating: "AB", count: 32))
            },
            ServiceViolations.custom(p, "a NUL in device_family", accepted: accepts) {
                $0["device_family"] = .string("Pi\u{0}HQ")
            },
            ServiceViolations.custom(p, "a NUL in device_serial", accepted: accepts) {
                $0["device_serial"] = .string("CAM\u{0}7")
            },
            ServiceViolations.custom(p, "a 100 KB device_family", accepted: accepts) {
                $0["device_family"] = .string(String(repeating: "f", count: 100_000))
            },
            ServiceViolations.custom(p, "produced_at 2025-02-30", accepted: accepts) {
                $0["produced_at"] = .string("2025-02-30T00:00:00.000Z")
            },
        ]
    }

    static func issue10Admin(_ accepts: Set<String>) throws -> [ServiceViolations.Sent] {
        let a = AdminCommand.schemaName
        return try [
            ServiceViolations.custom(a, "an extra top-level field", accepted: accepts) { $0["operator"] = .string("mallory") },
            ServiceViolations.custom(a, "a control character in reason", accepted: accepts) {
                $0["reason"] = .string("x\u{1B}[2J")
            },
            ServiceViolations.custom(a, "blacklist without a serial", accepted: accepts) { $0["device_serial"] = nil },
        ]
    }

    static func issue10Token(_ accepts: Set<String>) throws -> [ServiceViolations.Sent] {
        let t = TokenRequest.schemaName
        return try [
            ServiceViolations.custom(t, "an image hash", accepted: accepts) {
                $0["image_hash"] = .string(String(repeating: "a", count: 64))
            },
            ServiceViolations.custom(t, "upper-case token hex", accepted: accepts) {
                if case .object(var token) = $0["camera_token"], let tag = token["auth_tag"]?.string {
                    token["auth_tag"] = .string("F" + tag.dropFirst())
                    $0["camera_token"] = .object(token)
                }
            },
            ServiceViolations.custom(t, "mobile table_references [3,3,3]", accepted: accepts, example: 1) {
                $0["table_references"] = .array([.number("3"), .number("3"), .number("3")])
            },
        ]
    }
}
