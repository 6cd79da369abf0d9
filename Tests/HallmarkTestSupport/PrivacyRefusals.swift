import Foundation
import HallmarkCore
import HallmarkMessages

/// Messages every service that reads `hallmark.privacy.requests` refuses, whatever subject
/// types it holds, and the judgement of what it made of them: each gets one rejected record
/// and one `rejected` answer on the results topic, typed with its reason (DESIGN §2: every
/// service that refuses a privacy request answers it, so a caller never waits for ever).
public enum PrivacyRefusals {
    /// One message sent, and the answer it must get.
    public struct Case: Sendable {
        public let sent: ServiceViolations.Sent
        /// The answer's `reason`.
        public let reason: PrivacyResult.Reason
        /// The answer's `subject_type` (and `action`, `export`); nil when the message is no
        /// privacy request, whose answer names neither.
        public let subjectType: PrivacyRequest.SubjectType?
    }

    /// An admin command (`unknown_schema` there), then for each subject type an unsigned
    /// request, one whose `key_id` breaks its pattern and one whose subject does (each a
    /// `schema_violation`), all with fresh ids.
    public static func cases() throws -> [Case] {
        let accepted: Set<String> = [PrivacyRequest.schemaName]
        let admin = try ServiceViolations.custom(AdminCommand.schemaName, "an admin command", accepted: accepted) { _ in }
        var out = [Case(sent: admin, reason: .malformed, subjectType: nil)]
        for type in [PrivacyRequest.SubjectType.deviceSerial, .partnerID, .sessionID] {
            func request(_ rule: String, _ change: (inout [String: JSONValue]) -> Void) throws -> ServiceViolations.Sent {
                try ServiceViolations.custom(PrivacyRequest.schemaName, "\(type.rawValue): \(rule)", accepted: accepted) {
                    $0["subject_type"] = .string(type.rawValue)
                    // A UUID is a subject every type takes: only `change` breaks the schema.
                    $0["subject"] = .string(UUID().uuidString)
                    change(&$0)
                }
            }
            out += [
                Case(
                    sent: try request("unsigned") {
                        $0["key_id"] = nil
                        $0["signature"] = nil
                    }, reason: .unsignedRequest, subjectType: type),
                Case(
                    sent: try request("a bad key_id") { $0["key_id"] = .string("no such key!") }, reason: .malformed,
                    subjectType: type),
                Case(
                    sent: try request("a bad subject") { $0["subject"] = .string("two words") }, reason: .malformed,
                    subjectType: type),
            ]
        }
        return out
    }

    /// Whether every case has a rejected record and another answer among `outputs`.
    public static func isComplete(_ cases: [Case], outputs: [(topic: String, value: [UInt8])]) -> Bool {
        ServiceViolations.answers(to: cases.map(\.sent), outputs: outputs).byIndex.allSatisfy { found in
            found.contains(where: \.isRejection) && found.contains { !$0.isRejection }
        }
    }

    /// One line per case `service` did not answer as it must: exactly one rejected record, with
    /// the reason the runtime refuses it for, and exactly one `rejected` answer from `service`
    /// on `results` with the case's reason, action and subject type; and every answer meets
    /// its schema.
    public static func problems(
        _ cases: [Case], service: String, results: String, outputs: [(topic: String, value: [UInt8])]
    ) -> [String] {
        let (answers, invalid) = ServiceViolations.answers(to: cases.map(\.sent), outputs: outputs)
        var out = invalid
        for (c, found) in zip(cases, answers) {
            let records = found.filter(\.isRejection).map { $0.message["reason"]?.string ?? "?" }
            if records != [c.sent.rejection] { out.append("\(c.sent.label): rejected records \(records)") }
            let own = found.filter { !$0.isRejection }.map { answer in
                let m = answer.message
                return [
                    answer.topic, m["schema"]?.string, m["service"]?.string, m["status"]?.string, m["reason"]?.string,
                    m["action"]?.string, m["subject_type"]?.string,
                ].map { $0 ?? "-" }.joined(separator: " ")
            }
            let expected = [
                results, PrivacyResult.schemaName, service, "rejected", c.reason.rawValue,
                c.subjectType == nil ? "-" : "export", c.subjectType?.rawValue ?? "-",
            ].joined(separator: " ")
            if own != [expected] { out.append("\(c.sent.label): answered \(own), not [\(expected)]") }
        }
        return out
    }
}
