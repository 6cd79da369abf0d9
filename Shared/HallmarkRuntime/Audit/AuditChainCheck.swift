import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres

/// A service's audit trail checked from its tables (``AuditTrail``), row by row in sequence
/// order: what `hallmark audit verify` reports. The first problem found is given with its
/// position; records after it are not judged (the chain no longer vouches for them).
public struct AuditChainCheck: Sendable, Equatable {
    /// What breaks the chain, and where.
    public enum Problem: Sendable, Equatable, CustomStringConvertible {
        /// No row holds this sequence, but a later one exists: a row was deleted.
        case missing(sequence: Int64)
        /// The row's record does not parse as an audit record.
        case unreadable(sequence: Int64)
        /// The row's record or its columns were changed after it was written: its hash, its
        /// sequence or its indexed columns disagree with its content.
        case edited(sequence: Int64)
        /// The record does not follow the one before (that one, or this one, was replaced).
        case unlinked(sequence: Int64)
        /// The head says `head` records were written, but the last row is `last`: the rows
        /// after it were deleted.
        case truncated(last: Int64, head: Int64)
        /// The head's hash is not the last record's.
        case headMismatch(sequence: Int64)

        public var description: String {
            switch self {
            case .missing(let s): "record \(s) is missing (deleted)"
            case .unreadable(let s): "record \(s) is not an audit record (edited)"
            case .edited(let s): "record \(s) was edited: its hash does not match its content"
            case .unlinked(let s): "record \(s) does not follow record \(s - 1) (a record was replaced)"
            case .truncated(let last, let head): "records \(last + 1)...\(head) are missing (deleted at the end)"
            case .headMismatch(let s): "the head does not match record \(s)"
            }
        }

        /// The sequence where the chain breaks.
        public var sequence: Int64 {
            switch self {
            case .missing(let s), .unreadable(let s), .edited(let s), .unlinked(let s), .headMismatch(let s): s
            case .truncated(let last, _): last + 1
            }
        }
    }

    /// Rows read.
    public var records: Int64
    /// The head row's sequence and hash.
    public var headSequence: Int64
    public var headHash: String
    /// The first problem, or nil when the chain is intact.
    public var problem: Problem?
    /// Each record's hash by sequence, as far as the chain checked (all of them when intact):
    /// what ``AuditCopyCheck`` compares with the published copy.
    public var hashes: [Int64: String] = [:]

    /// Checks the trail in `schema`, reading `pageSize` rows at a time.
    public static func run(schema: String, pool: PostgresPool, pageSize: Int = 1000) async throws -> AuditChainCheck {
        let head = try await pool.query("SELECT sequence, hash FROM \(unescaped: schema).hallmark_audit_head")
        guard let headRow = head.first else {
            throw PostgresError(code: .invalidConfiguration, message: "\(schema) has no audit head row")
        }
        var check = AuditChainCheck(
            records: 0, headSequence: try headRow.column(0, as: Int64.self),
            headHash: try headRow.column(1, as: String.self), problem: nil)
        var (last, previousHash) = (Int64(0), AuditRecord.genesisHash)
        while check.problem == nil {
            let rows = try await pool.query(
                """
                SELECT sequence, action, subject_index, record FROM \(unescaped: schema).hallmark_audit
                WHERE sequence > \(last) ORDER BY sequence LIMIT \(pageSize)
                """)
            if rows.isEmpty { break }
            for (sequence, action, subject, bytes) in try rows.decode((Int64, String, String?, Data).self) {
                check.records += 1
                switch Self.judge(sequence, action, subject, bytes, after: last, previousHash) {
                case .broken(let problem):
                    check.problem = problem
                case .intact(let hash):
                    // The record's own hash, now known to match its content.
                    (last, previousHash) = (sequence, hash)
                    check.hashes[sequence] = hash
                }
                if check.problem != nil { break }
            }
        }
        guard check.problem == nil else { return check }
        if check.headSequence > last {
            check.problem = .truncated(last: last, head: check.headSequence)
        } else if check.headSequence < last || check.headHash != previousHash {
            check.problem = .headMismatch(sequence: last)
        }
        return check
    }

    /// One row against the one before it.
    private enum Judgement { case intact(hash: String), broken(Problem) }

    private static func judge(
        _ sequence: Int64, _ action: String, _ subject: String?, _ bytes: Data,
        after last: Int64, _ previousHash: String
    ) -> Judgement {
        guard sequence == last + 1 else { return .broken(.missing(sequence: last + 1)) }
        guard let record = try? JSONCoding.decode(Message<AuditRecord>.self, from: [UInt8](bytes)) else {
            return .broken(.unreadable(sequence: sequence))
        }
        guard record.sequence == UInt64(sequence), (try? record.computedHash()) == record.hash,
            record.action.rawValue == action, record.subjectIndex == subject
        else {
            return .broken(.edited(sequence: sequence))
        }
        guard record.previousHash == previousHash else { return .broken(.unlinked(sequence: sequence)) }
        return .intact(hash: record.hash)
    }
}
