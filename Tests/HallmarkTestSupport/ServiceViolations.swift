import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages

/// Derived violations to send through a running service, and the judgement of what came
/// back: each must be answered once — a rejected record with the right reason and original,
/// the service's own typed answer, or both (DESIGN §2: an input with a readable id is answered
/// on its result topic too) — and every answer must meet its own schema.
public enum ServiceViolations {
    /// One document sent.
    public struct Sent: Sendable {
        public let schema: String
        public let rule: String
        /// The document's `id` exactly as written, when it is a UUID string (a broken envelope's
        /// id too: its answer on the result topic carries it).
        public let id: String?
        public let bytes: [UInt8]
        public let sha256: String
        /// The reason a rejected record must carry for it: the envelope's error, then
        /// `unknown_schema`, else `schema_violation`.
        public let rejection: String

        /// Whether the stage's processor may see it (it may answer with its own result).
        public var reachesTheProcessor: Bool { rejection == RejectionReason.schemaViolation.rawValue }
        public var label: String { "\(schema): \(rule)" }
    }

    /// Every violation derived from the examples of `schema`, each with a fresh id (unless the
    /// violation is of the id), for a topic that takes `accepted` schemas.
    public static func derive(_ schema: String, accepted: Set<String>) throws -> [Sent] {
        let document = MessageSchemas.bundled(schema) ?? .null
        var out: [Sent] = []
        for example in try MessageExamples.of(schema) {
            let json = try example.json()
            for c in SchemaViolations.derive(schema: document, example: json) {
                out.append(sent(schema, "\(example.what): \(c.rule)", restamped(c.document, example: json), accepted: accepted))
            }
        }
        return out
    }

    /// One document made from the first example of `schema` by `change`.
    public static func custom(
        _ schema: String, _ rule: String, accepted: Set<String>, example index: Int = 0,
        _ change: (inout [String: JSONValue]) -> Void
    ) throws -> Sent {
        let example = try MessageExamples.of(schema)[index]
        guard case .object(var members) = try example.json() else { throw HarnessError("\(schema): not an object") }
        members["id"] = .string(MessageID.random().text)
        change(&members)
        return sent(schema, rule, .object(members), accepted: accepted)
    }

    /// `sent` without documents already in `seen` (identical bytes — `12345` for a root of the
    /// wrong type, say — could not be told apart by their answers).
    public static func distinct(_ sent: [Sent], seen: inout Set<String>) -> [Sent] {
        sent.filter { seen.insert($0.sha256).inserted }
    }

    /// A document whose id is the example's gets a fresh one, so every answer can be told apart.
    static func restamped(_ document: JSONValue, example: JSONValue) -> JSONValue {
        guard case .object(var members) = document, members["id"] == example["id"] else { return document }
        members["id"] = .string(MessageID.random().text)
        return .object(members)
    }

    /// A document as sent, classified by what the envelope reader makes of it.
    public static func sent(_ schema: String, _ rule: String, _ document: JSONValue, accepted: Set<String>) -> Sent {
        let bytes = JSONWriter.write(document)
        var rejection = RejectionReason.schemaViolation.rawValue
        do {
            let header = try EnvelopeHeader.read(bytes).header
            if !accepted.contains(header.schema) { rejection = RejectionReason.unknownSchema.rawValue }
        } catch {
            rejection = error.code.rawValue
        }
        let id = document["id"]?.string.flatMap { UUID(text: $0) != nil ? $0 : nil }
        return Sent(
            schema: schema, rule: rule, id: id, bytes: bytes, sha256: Hex.encode(SHA256Hash.digest(bytes)),
            rejection: rejection)
    }

    /// What came back for one document.
    public struct Answer: Sendable {
        public let topic: String
        public let message: JSONValue
        public var isRejection: Bool { message["schema"]?.string == RejectedRecord.schemaName }
    }

    /// Every answer to each sent document: rejected records by the original's SHA-256, other
    /// messages by `request_id`. Each answer is also checked against its own schema.
    public static func answers(
        to sent: [Sent], outputs: [(topic: String, value: [UInt8])]
    ) -> (byIndex: [[Answer]], invalid: [String]) {
        var bySHA: [String: [Answer]] = [:], byRequest: [String: [Answer]] = [:]
        var invalid: [String] = []
        var seen = Set<String>()
        for output in outputs {
            guard let message = try? JSONReader.parse(output.value), let name = message["schema"]?.string else { continue }
            // A redelivery (a rebalance under load) is answered again under the same id: one answer.
            if let id = message["id"]?.string, !seen.insert("\(output.topic)/\(id)").inserted { continue }
            if let schema = MessageSchemas.schema(name), let violation = schema.validate(message) {
                invalid.append("a \(name) on \(output.topic) breaks its schema: \(violation)")
            }
            let answer = Answer(topic: output.topic, message: message)
            if answer.isRejection, let sha = message["original_sha256"]?.string {
                bySHA[sha, default: []].append(answer)
            } else if let request = message["request_id"]?.string {
                byRequest[request, default: []].append(answer)
            }
        }
        let byIndex = sent.map { s in (bySHA[s.sha256] ?? []) + (s.id.flatMap { byRequest[$0] } ?? []) }
        return (byIndex, invalid)
    }

    /// One line per document not answered exactly once: at most one rejected record (with the
    /// right reason and original) and at most one answer of the service's own, at least one of
    /// them, and a rejected record for every document the processor never saw. `typed` says
    /// whether a service's own answer is acceptable for a document; `answered`, whether one is
    /// required (DESIGN §2: when its id reads).
    public static func problems(
        _ sent: [Sent], _ answers: [[Answer]], typed: (Sent, Answer) -> Bool,
        answered: (Sent) -> Bool = { _ in false }
    ) -> [String] {
        var out: [String] = []
        for (s, found) in zip(sent, answers) {
            let records = found.filter(\.isRejection), own = found.filter { !$0.isRejection }
            guard !found.isEmpty, records.count <= 1, own.count <= 1, s.reachesTheProcessor || records.count == 1 else {
                out.append("\(s.label): \(records.count) rejected records and \(own.count) answers")
                continue
            }
            if let record = records.first {
                let reason = record.message["reason"]?.string ?? "?"
                let original = record.message["original_id"]?.string
                if reason != s.rejection { out.append("\(s.label): rejected as \(reason), not \(s.rejection)") }
                if original != nil && original != s.id { out.append("\(s.label): the record names another original") }
            }
            if let answer = own.first, !typed(s, answer) {
                out.append("\(s.label): answered by \(answer.message["schema"]?.string ?? "?") on \(answer.topic)")
            } else if own.isEmpty && answered(s) {
                out.append("\(s.label): no answer on the result topic")
            }
        }
        return out
    }
}
