/// `hallmark.privacy.result.v1`: one service's answer to a privacy request; the CLI gathers
/// one per service. It does not repeat the subject.
public struct PrivacyResult: MessageBody, Hashable {
    public static let schemaName = "hallmark.privacy.result.v1"

    /// `completed`, `not_found` (nothing held) or `rejected`.
    public enum Status: String, Codable, Sendable {
        case completed
        case notFound = "not_found"
        case rejected
    }

    /// Why a request was refused.
    public enum Reason: String, Codable, Sendable, CaseIterable {
        case unsignedRequest = "unsigned_request"
        case badSignature = "bad_signature"
        case unknownKey = "unknown_key"
        case staleRequest = "stale_request"
        case malformed
        /// Refused by the runtime (DESIGN §2): larger than the limit, an id already used for
        /// other bytes or on another topic, or processing that kept failing.
        case oversized
        case idReused = "id_reused"
        case processingFailed = "processing_failed"
        /// The same signed request sent again after it was answered (a replay).
        case replayedCommand = "replayed_command"
    }

    /// Why data outlives an erasure.
    public enum RetentionReason: String, Codable, Sendable {
        /// Replay records, until their window closes.
        case replayWindow = "replay_window"
        /// An erased camera's tombstone (its serial cannot be re-provisioned by accident).
        case tombstone
        /// The audit trail's blind-indexed entry.
        case auditTrail = "audit_trail"
    }

    public var service: String
    public var instance: String
    /// The request's action; nil only in a refusal of a message whose action could not be read
    /// (one that is no privacy request, say): every service that refuses a request answers it.
    public var action: PrivacyRequest.Action?
    /// The request's subject type; nil as `action` is.
    public var subjectType: PrivacyRequest.SubjectType?
    public var status: Status
    public var reason: Reason?
    /// Completed export: everything held about the subject, as flat rows.
    public var records: [ExportRecord]?
    /// Completed erase: rows deleted, by source.
    public var erased: [SourceCount]?
    /// Completed erase: what outlives the request, and until when.
    public var retained: [Retained]?
    /// The audit record that logged the request.
    public var auditSequence: UInt64?

    /// The fields every answer has; set the rest for its status.
    public init(
        service: String,
        instance: String, action: PrivacyRequest.Action?, subjectType: PrivacyRequest.SubjectType?, status: Status,
        reason: Reason? = nil
    ) {
        self.service = service
        self.instance = instance
        self.action = action
        self.subjectType = subjectType
        self.status = status
        self.reason = reason
    }

    enum CodingKeys: String, CodingKey {
        case service, instance, action, status, reason, records, erased, retained
        case subjectType = "subject_type"
        case auditSequence = "audit_sequence"
    }
}

extension PrivacyResult {
    /// One row about the subject: where it is held and its columns (binary as base64, times
    /// as timestamps; never key material).
    public struct ExportRecord: Codable, Sendable, Hashable {
        /// `schema.table` or a topic.
        public var source: String
        public var fields: [String: Value]

        public init(source: String, fields: [String: Value]) {
            self.source = source
            self.fields = fields
        }
    }

    /// A scalar column value.
    public enum Value: Codable, Sendable, Hashable {
        case string(String)
        case integer(Int64)
        case number(Double)
        case bool(Bool)
        case null

        public init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() {
                self = .null
            } else if let b = try? c.decode(Bool.self) {
                self = .bool(b)
            } else if let i = try? c.decode(Int64.self) {
                self = .integer(i)
            } else if let d = try? c.decode(Double.self) {
                self = .number(d)
            } else {
                self = .string(try c.decode(String.self))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .string(let s): try c.encode(s)
            case .integer(let i): try c.encode(i)
            case .number(let d): try c.encode(d)
            case .bool(let b): try c.encode(b)
            case .null: try c.encodeNil()
            }
        }
    }

    /// How many rows of one source.
    public struct SourceCount: Codable, Sendable, Hashable {
        public var source: String
        public var count: Int64

        public init(source: String, count: Int64) {
            self.source = source
            self.count = count
        }
    }

    /// Rows that outlive an erasure, why, and until when (nil: as long as the service exists).
    public struct Retained: Codable, Sendable, Hashable {
        public var source: String
        public var count: Int64
        public var why: RetentionReason
        public var until: String?

        public init(source: String, count: Int64, why: RetentionReason, until: String? = nil) {
            self.source = source
            self.count = count
            self.why = why
            self.until = until
        }
    }
}
