import Foundation
import HallmarkCore
import HallmarkCrypto

/// `hallmark.audit.record.v1`: one entry of a service's hash-chained audit trail
/// (`hallmark.audit`). `hash` is SHA-256 of the canonical JSON of the record's message without
/// the envelope's transport members and `hash` (``Message/chainedBytes()``: its `request_id`
/// is covered); `previous_hash` is the hash of the record before (``genesisHash`` for
/// sequence 1). The subject is only a blind index.
public struct AuditRecord: MessageBody, Hashable {
    public static let schemaName = "hallmark.audit.record.v1"
    /// `previous_hash` of the first record.
    public static let genesisHash = String(repeating: "0", count: 64)
    /// The members the hash does not cover: the envelope's transport members and the hash.
    static let unchained: Set<String> = ["schema", "id", "produced_at", "correlation_id", "reply_to", "hash"]

    /// Who acted.
    public enum Actor: String, Codable, Sendable { case `operator`, service }

    /// What was done.
    public enum Action: String, Codable, Sendable, CaseIterable {
        case blacklist, unblacklist
        /// A blacklisting by an abuse threshold.
        case abuseBlacklist = "abuse_blacklist"
        case retireTable = "retire_table"
        case rotateKEK = "rotate_kek"
        case privacyExport = "privacy_export"
        case privacyErase = "privacy_erase"
        case kekRotation = "kek_rotation"
        case signingSecretRotation = "signing_secret_rotation"
        case checkpointKeyRotation = "checkpoint_key_rotation"

        /// A change to the keys a service holds, recorded by ``keyID`` (`KeyRotationRecorder`).
        public var isKeyRotation: Bool { [.kekRotation, .signingSecretRotation, .checkpointKeyRotation].contains(self) }
    }

    /// What the subject index is of.
    public enum SubjectType: String, Codable, Sendable {
        case deviceSerial = "device_serial"
        case partnerID = "partner_id"
        case sessionID = "session_id"
        case tableID = "table_id"
    }

    /// How it ended.
    public enum Outcome: String, Codable, Sendable { case succeeded, rejected, failed }

    public var service: String
    /// 1, 2, 3, … per service, without gaps.
    public var sequence: UInt64
    public var previousHash: String
    public var hash: String
    public var occurredAt: String
    public var actor: Actor
    /// The operator key (operator actions only).
    public var actorKeyID: String?
    public var action: Action
    public var subjectType: SubjectType?
    /// The subject's keyed blind index, hex (never the subject).
    public var subjectIndex: String?
    public var tableID: Int?
    public var outcome: Outcome
    /// A reason code (a rejection's, say).
    public var reason: String?
    /// The key a rotation record is about (`kek.2`, a signing secret's version, a checkpoint
    /// key's id): an id, never key material. Only on the three `…_rotation` actions.
    public var keyID: String?

    /// The record after `previous` (nil for the first), not yet hashed
    /// (``Message/init(chaining:id:producedAt:requestID:)`` hashes it).
    public init(
        service: String, after previous: AuditRecord?, occurredAt: String,
        actor: Actor, actorKeyID: String?, action: Action, subjectType: SubjectType?, subjectIndex: String?,
        tableID: Int? = nil, outcome: Outcome, reason: String? = nil, keyID: String? = nil
    ) {
        self.init(
            service: service, following: previous?.sequence ?? 0,
            previousHash: previous?.hash ?? Self.genesisHash, occurredAt: occurredAt, actor: actor,
            actorKeyID: actorKeyID, action: action, subjectType: subjectType, subjectIndex: subjectIndex,
            tableID: tableID, outcome: outcome, reason: reason, keyID: keyID)
    }

    /// The record after the one numbered `sequence` whose hash is `previousHash` (0 and
    /// ``genesisHash`` for the first), not yet hashed.
    public init(
        service: String, following sequence: UInt64, previousHash: String,
        occurredAt: String, actor: Actor, actorKeyID: String?, action: Action, subjectType: SubjectType?,
        subjectIndex: String?, tableID: Int? = nil, outcome: Outcome,
        reason: String? = nil, keyID: String? = nil
    ) {
        self.service = service
        self.sequence = sequence + 1
        self.previousHash = previousHash
        hash = ""
        self.occurredAt = occurredAt
        self.actor = actor
        self.actorKeyID = actorKeyID
        self.action = action
        self.subjectType = subjectType
        self.subjectIndex = subjectIndex
        self.tableID = tableID
        self.outcome = outcome
        self.reason = reason
        self.keyID = keyID
    }

    enum CodingKeys: String, CodingKey {
        case service, sequence, hash, actor, action, outcome, reason
        case previousHash = "previous_hash"
        case occurredAt = "occurred_at"
        case actorKeyID = "actor_key_id"
        case subjectType = "subject_type"
        case subjectIndex = "subject_index"
        case tableID = "table_id"
        case keyID = "key_id"
    }
}
