import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime

extension SubmissionLedger {
    /// What a derived submission's intake did with it at once.
    struct Followed: Sendable {
        /// Answers of derived submissions whose root was refused already, by submission.
        var outputs: [UUID: StageOutput] = [:]
        /// Whether any was queued (its root had passed).
        var queued = false
    }

    /// Derived submissions (recorded, `validating`) await their token's root (``CaptureTokens``),
    /// asking the authority nothing.
    /// Those whose root has its outcome already take it now: queued when the root passed,
    /// rejected with its reason when it was refused.
    ///
    /// The roots' rows are read `FOR SHARE` after the derived rows name them, so a root's
    /// transition and this read cannot miss each other: a transition committed first is read
    /// here, and one that waits for this lock runs ``followers(of:on:)`` after this commits.
    func follow(_ derived: [(id: UUID, root: UUID)], on connection: PostgresConnection) async throws -> Followed {
        guard !derived.isEmpty else { return Followed() }
        let update: PostgresQuery = """
            UPDATE \(unescaped: schema).submissions s SET awaits = d.root, \(Self.askAnswered)
            FROM unnest(\(PostgresArray(derived.map(\.id))), \(PostgresArray(derived.map(\.root)))) AS d(id, root)
            WHERE s.submission_id = d.id AND s.status = 'validating'
            """
        try await connection.execute(Self.keyedUpdate(update))
        let rows = try await connection.query(
            """
            SELECT submission_id, status, result FROM \(unescaped: schema).submissions
            WHERE submission_id = ANY(\(PostgresArray(Array(Set(derived.map(\.root)))))) FOR SHARE
            """)
        var roots: [UUID: (status: String, result: Data?)] = [:]
        for (id, status, result) in try rows.decode((UUID, String, Data?).self) { roots[id] = (status, result) }
        var queue: [UUID] = []
        var reject: [(id: UUID, reason: SubmissionResult.Reason)] = []
        for d in derived {
            switch roots[d.root] {
            case nil:
                // Gone: kept longer than the window, so not a root within it.
                reject.append((d.id, .replayedToken))
            case (Status.validating.rawValue, _)?:
                continue
            case (Status.answered.rawValue, let result?)?:
                let answer = try JSONCoding.decode(Message<SubmissionResult>.self, from: result).body
                if answer.status == .rejected {
                    reject.append((d.id, answer.reason ?? .malformed))
                } else {
                    queue.append(d.id)
                }
            default:
                queue.append(d.id)
            }
        }
        try await queueOnly(queue, on: connection)
        return Followed(outputs: try await rejectOnly(reject, on: connection), queued: !queue.isEmpty)
    }

    /// The submissions awaiting these roots, oldest first.
    func followers(of roots: [UUID], on connection: PostgresConnection) async throws -> [(id: UUID, root: UUID)] {
        guard !roots.isEmpty else { return [] }
        let rows = try await connection.query(
            """
            SELECT submission_id, awaits FROM \(unescaped: schema).submissions
            WHERE awaits = ANY(\(PostgresArray(roots))) AND status = 'validating'
            ORDER BY created_at, submission_id
            """)
        return try rows.decode((UUID, UUID).self).map { (id: $0.0, root: $0.1) }
    }

    /// The recorded answers of the submissions that awaited these roots and are answered, by
    /// root, oldest first: what a root's transition answered with it (``reject(_:on:)``),
    /// made again with the root's own when that transition's outputs may not have been sent.
    func answeredFollowers(of roots: [UUID], on connection: PostgresConnection) async throws -> [UUID: [StageOutput]] {
        guard !roots.isEmpty else { return [:] }
        let rows = try await connection.query(
            """
            SELECT awaits, reply_topic, reply_key, result FROM \(unescaped: schema).submissions
            WHERE awaits = ANY(\(PostgresArray(roots))) AND status = 'answered' AND result IS NOT NULL
            ORDER BY created_at, submission_id
            """)
        var out: [UUID: [StageOutput]] = [:]
        for (root, topic, key, result) in try rows.decode((UUID, String, Data?, Data).self) {
            out[root, default: []].append(StageOutput(topic: topic, key: key.map { [UInt8]($0) }, value: [UInt8](result)))
        }
        return out
    }
}
