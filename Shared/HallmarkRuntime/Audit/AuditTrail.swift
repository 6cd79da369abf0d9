import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkPostgres

/// A service's tamper-evident audit trail (DESIGN §2, `hallmark.audit`): every admin command,
/// privacy request, key rotation and blacklist change becomes an ``AuditRecord``, appended in
/// the transaction that does the change and published once it commits.
///
/// Records are hash-chained (``AuditRecord``): each holds the SHA-256 of the one before, so an
/// edited, inserted or deleted row breaks the chain at its position. A head row holds the
/// last sequence and hash: appends lock it, so replicas append one at a time and sequences
/// have no gaps, and a deleted tail shows as a head ahead of the last row
/// (``AuditChainCheck``). The subject is stored and published only as a keyed blind index.
public struct AuditTrail: Sendable {
    /// The service's schema.
    public let schema: String
    /// The service name the records carry.
    public let service: String
    /// The topic records are published on (`HALLMARK_AUDIT_TOPIC`, default `hallmark.audit`).
    public let topic: String
    private let indexKey: Data?

    /// - Parameter indexKey: the service's blind-index key (≥ 32 bytes), for subject indexes;
    ///   without one, records name no device, partner or session.
    public init(schema: String, service: String, topic: String = TopicCatalogue.audit.name, indexKey: Data?) {
        self.schema = schema
        self.service = service
        self.topic = topic
        self.indexKey = indexKey
    }

    /// The trail's tables, as runtime migrations a service adds to its own: the chain, and
    /// the keys it last saw in force (``KeyRotationRecorder``).
    public static func migrations(schema: String) -> [PostgresMigrations.Migration] {
        [
            migration(schema: schema),
            .init(
                version: StageDatabase.runtimeVersions + 6, name: "hallmark_audit_keys",
                sql: """
                    CREATE TABLE \(schema).hallmark_audit_keys (
                        kind text NOT NULL,
                        key_id text NOT NULL,
                        check_value text NOT NULL,
                        is_current boolean NOT NULL,
                        PRIMARY KEY (kind, key_id)
                    );
                    """),
        ]
    }

    static func migration(schema: String) -> PostgresMigrations.Migration {
        .init(
            version: StageDatabase.runtimeVersions + 5, name: "hallmark_audit",
            sql: """
                CREATE TABLE \(schema).hallmark_audit (
                    sequence bigint PRIMARY KEY CHECK (sequence > 0),
                    action text NOT NULL,
                    subject_index text,
                    recorded_at timestamptz NOT NULL DEFAULT now(),
                    record bytea NOT NULL
                );
                CREATE INDEX hallmark_audit_subject ON \(schema).hallmark_audit (subject_index)
                    WHERE subject_index IS NOT NULL;
                CREATE TABLE \(schema).hallmark_audit_head (
                    single boolean PRIMARY KEY DEFAULT true CHECK (single),
                    sequence bigint NOT NULL CHECK (sequence >= 0),
                    hash text NOT NULL
                );
                INSERT INTO \(schema).hallmark_audit_head (sequence, hash) VALUES (0, '\(AuditRecord.genesisHash)');
                """)
    }

    /// The key its records are published under: `service/schema`, one trail's. Records of
    /// another deployment (or a test) on the same topic never mix with this trail's, and a
    /// trail's records keep their order (one partition).
    public var kafkaKey: String { Self.kafkaKey(service: service, schema: schema) }

    /// The key of the trail of `service` in `schema`.
    public static func kafkaKey(service: String, schema: String) -> String { "\(service)/\(schema)" }

    /// A subject's blind index (hex), as records and the subject column hold it; nil without
    /// an index key.
    public func subjectIndex(_ subject: String, type: AuditRecord.SubjectType) -> String? {
        guard let indexKey else { return nil }
        return
            (try? AtRestSeal.blindIndex(
                Data(subject.utf8), table: "hallmark_audit", column: type.rawValue,
                indexKey: indexKey)).map(Hex.encode)
    }

    /// What happened, before it is chained.
    public struct Entry: Sendable {
        public var actor: AuditRecord.Actor
        public var actorKeyID: String?
        public var action: AuditRecord.Action
        public var subject: (type: AuditRecord.SubjectType, value: String)?
        public var tableID: Int?
        public var requestID: MessageID?
        public var outcome: AuditRecord.Outcome
        public var reason: String?
        /// The key a rotation record is about (``KeyRotationRecorder``).
        public var keyID: String?

        /// An operator's action, by the key that signed it.
        public static func byOperator(
            _ keyID: String, _ action: AuditRecord.Action,
            subject: (type: AuditRecord.SubjectType, value: String)? = nil, tableID: Int? = nil,
            requestID: MessageID?, outcome: AuditRecord.Outcome, reason: String? = nil
        ) -> Entry {
            Entry(
                actor: .operator, actorKeyID: keyID, action: action, subject: subject, tableID: tableID,
                requestID: requestID, outcome: outcome, reason: reason, keyID: nil)
        }

        /// The service's own action (a sweeper, an abuse threshold).
        public static func byService(
            _ action: AuditRecord.Action,
            subject: (type: AuditRecord.SubjectType, value: String)? = nil, tableID: Int? = nil,
            requestID: MessageID? = nil, outcome: AuditRecord.Outcome = .succeeded,
            reason: String? = nil
        ) -> Entry {
            Entry(
                actor: .service, actorKeyID: nil, action: action, subject: subject, tableID: tableID,
                requestID: requestID, outcome: outcome, reason: reason, keyID: nil)
        }

        /// A change to the keys the service holds, seen by the service (at start or reload).
        public static func keyChange(_ action: AuditRecord.Action, keyID: String, reason: String) -> Entry {
            Entry(
                actor: .service, actorKeyID: nil, action: action, subject: nil, tableID: nil, requestID: nil,
                outcome: .succeeded, reason: reason, keyID: keyID)
        }
    }

    /// Appends `entry` in the caller's transaction (waiting for any other replica's append to
    /// commit first) and returns the record and its output for after the commit. The record's
    /// id is derived from `idSeed` (the command's id, say), so a retried transaction makes the
    /// same id.
    public func append(
        _ entry: Entry, idSeed: String, on connection: PostgresConnection
    ) async throws
        -> (record: Message<AuditRecord>, output: StageOutput)
    {
        let head = try await connection.query(
            """
            SELECT sequence, hash FROM \(unescaped: schema).hallmark_audit_head FOR UPDATE
            """)
        guard let row = head.first else { throw PostgresError(code: .invalidConfiguration, message: "no audit head row") }
        let (sequence, hash) = (try row.column(0, as: Int64.self), try row.column(1, as: String.self))
        let index = entry.subject.flatMap { subjectIndex($0.value, type: $0.type) }
        let subjectType = index != nil ? entry.subject?.type : (entry.tableID != nil ? .tableID : nil)
        let now = Timestamp.now()
        let record = try Message(
            chaining: AuditRecord(
                service: service, following: UInt64(sequence), previousHash: hash, occurredAt: now.text,
                actor: entry.actor, actorKeyID: entry.actorKeyID, action: entry.action, subjectType: subjectType,
                subjectIndex: index, tableID: entry.tableID, outcome: entry.outcome, reason: entry.reason,
                keyID: entry.keyID),
            id: MessageID.derived(from: idSeed, "audit-\(service)"), producedAt: now, requestID: entry.requestID)
        let bytes = try JSONCoding.encode(record)
        try await connection.execute(
            """
            INSERT INTO \(unescaped: schema).hallmark_audit (sequence, action, subject_index, record)
            VALUES (\(Int64(record.sequence)), \(record.action.rawValue), \(record.subjectIndex), \(Data(bytes)))
            """)
        try await connection.execute(
            """
            UPDATE \(unescaped: schema).hallmark_audit_head SET sequence = \(Int64(record.sequence)), hash = \(record.hash)
            """)
        return (record, StageOutput(topic: topic, key: Array(kafkaKey.utf8), value: bytes))
    }
}
