import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres

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

    /// Compares table records (sequence → hash) with published ones.
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

    /// Reads the table's records' hashes (sequence → hash) from `schema`; unreadable rows are
    /// left out (the chain check reports them).
    public static func tableHashes(schema: String, pool: PostgresPool, pageSize: Int = 1000) async throws -> [Int64: String] {
        var hashes: [Int64: String] = [:]
        var last = Int64(0)
        while true {
            let rows = try await pool.query("""
                SELECT sequence, record FROM \(unescaped: schema).hallmark_audit
                WHERE sequence > \(last) ORDER BY sequence LIMIT \(pageSize)
                """)
            if rows.isEmpty { return hashes }
            for (sequence, bytes) in try rows.decode((Int64, Data).self) {
                last = sequence
                if let record = try? JSONCoding.decode(AuditRecord.self, from: [UInt8](bytes)) { hashes[sequence] = record.hash }
            }
        }
    }
}
