/// A service's audit table against the copy it published on the audit topic: what the chain
/// check alone cannot see. Someone able to write the table can rewrite a record and every
/// record after it, and the head, into a chain that checks; the published copy still holds the
/// original hashes. Records are compared by sequence and hash; a topic keeps duplicates (it is
/// delivered at least once), which agree.
public struct AuditCopyCheck: Sendable, Equatable {
    /// Where table and topic disagree.
    public enum Problem: Sendable, Equatable, CustomStringConvertible {
        /// The table's record differs from the one published with its sequence.
        case rewritten(sequence: Int64)
        /// A record was published that the table no longer holds (deleted, head moved back).
        case deleted(sequence: Int64)

        public var description: String {
            switch self {
            case .rewritten(let s): "record \(s) differs from the copy published on the audit topic (rewritten)"
            case .deleted(let s): "record \(s) was published but the table no longer holds it (deleted)"
            }
        }

        public var sequence: Int64 {
            switch self {
            case .rewritten(let s), .deleted(let s): s
            }
        }
    }

    /// Table records that have a published copy.
    public var matched: Int
    /// Table records with no published copy: older than the topic's retention, or sent again
    /// by a service that stopped between its commit and the publication. Not a break.
    public var unpublished: Int
    /// The first disagreement, by sequence, or nil.
    public var problem: Problem?

    /// Compares the table's records (sequence → hash: ``AuditChainCheck/hashes`` of an intact
    /// chain) with the published ones.
    public static func compare(table: [Int64: String], published: [(sequence: Int64, hash: String)]) -> AuditCopyCheck {
        var copies: [Int64: Set<String>] = [:]
        for p in published { copies[p.sequence, default: []].insert(p.hash) }
        var check = AuditCopyCheck(matched: 0, unpublished: 0, problem: nil)
        var problems: [Problem] = []
        for (sequence, hash) in table {
            guard let seen = copies[sequence] else { check.unpublished += 1; continue }
            if seen == [hash] { check.matched += 1 } else { problems.append(.rewritten(sequence: sequence)) }
        }
        for sequence in copies.keys where table[sequence] == nil { problems.append(.deleted(sequence: sequence)) }
        check.problem = problems.min { $0.sequence < $1.sequence }
        return check
    }
}
