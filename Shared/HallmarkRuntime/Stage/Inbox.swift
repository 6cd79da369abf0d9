import Foundation
import HallmarkCrypto
import HallmarkKafka
import HallmarkPostgres

/// SQL over `<schema>.hallmark_inbox` (see ``StageDatabase``): record committed messages with
/// where they came from, a digest of their bytes and their outputs, and read back what an id
/// already recorded was, so a second message with it can be told apart (``Sighting``).
struct Inbox: Sendable {
    let schema: String
    /// Seals the outputs at rest when set (``StageDatabase/outputKeyring``).
    var keyring: KeyEncryptionKeyring? = nil

    /// One committed message.
    struct Entry {
        let id: UUID
        let topic: String
        let partition: Int32
        let offset: Int64
        let digest: [UInt8]
        let outputs: [StageOutput]

        init(id: UUID, message: StageMessage, outputs: [StageOutput]) {
            self.id = id
            topic = message.kafka.topic
            partition = message.kafka.partition
            offset = message.kafka.offset
            digest = message.contentDigest
            self.outputs = outputs
        }
    }

    /// What the inbox holds for an id.
    struct Record: Sendable {
        let topic: String
        /// ``StageMessage/contentDigest``; nil for records written before digests were kept.
        let digest: [UInt8]?
        let partition: Int32?
        let offset: Int64?
        /// The first answer (nil for records from builds that cleared it once sent).
        let outputs: [StageOutput]?
    }

    /// How a message relates to the record of its id (DESIGN §2, ids).
    enum Sighting: Equatable, Sendable {
        /// The same record consumed again (same topic, partition and offset): its first answer.
        case redelivery
        /// The same message (``StageMessage/contentDigest``) on the same topic, published again
        /// as a new record. A redelivery for most stages; a signed command's stage may call it
        /// a replay.
        case resent
        /// Other content, or another topic: the id was used for something else (`id_reused`).
        case reused(otherTopic: Bool)
    }

    /// How `message` relates to `record`, the record of its id.
    static func sighting(of message: StageMessage, against record: Record) -> Sighting {
        guard record.topic == message.kafka.topic else { return .reused(otherTopic: true) }
        if let digest = record.digest, digest != message.contentDigest { return .reused(otherTopic: false) }
        guard let partition = record.partition, let offset = record.offset else { return .redelivery }
        return partition == message.kafka.partition && offset == message.kafka.offset ? .redelivery : .resent
    }

    /// Records the entries in the caller's transaction; returns the ids that were new (an id
    /// already there belongs to a message committed before).
    func record(_ entries: [Entry], on connection: PostgresConnection) async throws -> Set<UUID> {
        let rows = try await connection.query(
            """
            INSERT INTO \(unescaped: schema).hallmark_inbox
                (message_id, source_topic, source_partition, source_offset, digest, outputs)
            SELECT * FROM unnest(\(PostgresArray(entries.map(\.id))), \(PostgresArray(entries.map(\.topic))),
                                 \(PostgresArray(entries.map { Int64($0.partition) })), \(PostgresArray(entries.map(\.offset))),
                                 \(PostgresArray(entries.map { Data($0.digest) })),
                                 \(PostgresArray(try entries.map { try seal(OutboxCodec.encode($0.outputs), id: $0.id) })))
            ON CONFLICT (message_id) DO NOTHING
            RETURNING message_id
            """)
        return Set(try rows.map { try $0.column(0, as: UUID.self) })
    }

    /// Where a message's sealed outputs belong (the seal's associated data).
    private func context(_ id: UUID) -> AtRestContext {
        AtRestContext(table: "\(schema).hallmark_inbox", column: "outputs", rowId: id.lowercasedText)
    }

    private func seal(_ outputs: Data, id: UUID) throws -> Data {
        guard let keyring else { return outputs }
        return try AtRestSeal.seal(outputs, context: context(id), keyring: keyring)
    }

    /// Nil when the seal does not open (a KEK retired since): the answer is not re-sent.
    private func open(_ stored: Data, id: UUID) -> Data? {
        guard let keyring else { return stored }
        return try? AtRestSeal.open(stored, context: context(id), keyring: keyring)
    }

    /// The records of `ids` (absent: never recorded, or swept).
    func records(_ ids: [UUID], pool: PostgresPool) async throws -> [UUID: Record] {
        let rows = try await pool.query(
            """
            SELECT message_id, source_topic, digest, source_partition, source_offset, outputs
            FROM \(unescaped: schema).hallmark_inbox WHERE message_id = ANY(\(PostgresArray(ids)))
            """)
        var out: [UUID: Record] = [:]
        for (id, topic, digest, partition, offset, blob) in try rows.decode((UUID, String, Data?, Int32?, Int64?, Data?).self) {
            // A record this build cannot read was written by a newer one: no answer to re-send.
            out[id] = Record(
                topic: topic, digest: digest.map(Array.init), partition: partition, offset: offset,
                outputs: blob.flatMap { open($0, id: id) }.flatMap(OutboxCodec.decode))
        }
        return out
    }
}
