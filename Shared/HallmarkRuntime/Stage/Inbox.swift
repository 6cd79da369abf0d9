import Foundation
import HallmarkKafka
import HallmarkPostgres

/// SQL over `<schema>.hallmark_inbox` (see ``StageDatabase``): record committed messages with
/// their outputs, read back what a redelivered message produced, forget outputs once sent.
struct Inbox: Sendable {
    let schema: String

    /// One committed message.
    struct Entry {
        let id: UUID
        let topic: String
        let outputs: [StageOutput]
    }

    /// Records the entries in the caller's transaction; returns the ids that were new (an id
    /// already there belongs to a message committed before: a redelivery).
    func record(_ entries: [Entry], on connection: PostgresConnection) async throws -> Set<UUID> {
        let rows = try await connection.query("""
            INSERT INTO \(unescaped: schema).hallmark_inbox (message_id, source_topic, outputs)
            SELECT * FROM unnest(\(PostgresArray(entries.map(\.id))), \(PostgresArray(entries.map(\.topic))),
                                 \(PostgresArray(entries.map { OutboxCodec.encode($0.outputs) })))
            ON CONFLICT (message_id) DO NOTHING
            RETURNING message_id
            """)
        return Set(try rows.map { try $0.column(0, as: UUID.self) })
    }

    /// The outputs recorded for `ids` and not yet acknowledged (absent: already sent).
    func unsent(_ ids: [UUID], pool: PostgresPool) async throws -> [UUID: [StageOutput]] {
        let rows = try await pool.query("""
            SELECT message_id, outputs FROM \(unescaped: schema).hallmark_inbox
            WHERE message_id = ANY(\(PostgresArray(ids))) AND outputs IS NOT NULL
            """)
        var out: [UUID: [StageOutput]] = [:]
        for (id, blob) in try rows.decode((UUID, Data).self) {
            // A record this build cannot read was written by a newer one: nothing to re-send.
            if let outputs = OutboxCodec.decode(blob) { out[id] = outputs }
        }
        return out
    }

    /// Forgets the outputs of messages whose outputs the broker acknowledged.
    func clear(_ ids: [UUID], pool: PostgresPool) async throws {
        try await pool.execute("""
            UPDATE \(unescaped: schema).hallmark_inbox SET outputs = NULL
            WHERE message_id = ANY(\(PostgresArray(ids))) AND outputs IS NOT NULL
            """)
    }
}

/// The byte form of a message's outputs in the inbox: version 1, a count, then per output
/// the topic, partition, key and value, each length-prefixed (big-endian).
enum OutboxCodec {
    static func encode(_ outputs: [StageOutput]) -> Data {
        var out = Data([1])
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: v).bigEndian) { out.append(contentsOf: $0) } }
        func i32(_ v: Int32) { withUnsafeBytes(of: v.bigEndian) { out.append(contentsOf: $0) } }
        u32(outputs.count)
        for o in outputs {
            u32(o.topic.utf8.count)
            out.append(contentsOf: o.topic.utf8)
            i32(o.partition ?? -1)
            if let key = o.key {
                i32(Int32(key.count))
                out.append(contentsOf: key)
            } else {
                i32(-1)
            }
            u32(o.value.count)
            out.append(contentsOf: o.value)
        }
        return out
    }

    static func decode(_ data: Data) -> [StageOutput]? {
        let bytes = [UInt8](data)
        var i = 1
        guard bytes.first == 1 else { return nil }
        func u32() -> Int? {
            guard i + 4 <= bytes.count else { return nil }
            defer { i += 4 }
            return Int(bytes[i..<i + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        }
        func i32() -> Int32? { u32().map { Int32(bitPattern: UInt32($0)) } }
        func take(_ n: Int) -> [UInt8]? {
            guard n >= 0, i + n <= bytes.count else { return nil }
            defer { i += n }
            return Array(bytes[i..<i + n])
        }
        guard let count = u32() else { return nil }
        var outputs: [StageOutput] = []
        for _ in 0..<count {
            guard let topicLength = u32(), let topic = take(topicLength), let partition = i32(), let keyLength = i32()
            else { return nil }
            var key: [UInt8]?
            if keyLength >= 0 {
                guard let k = take(Int(keyLength)) else { return nil }
                key = k
            }
            guard let valueLength = u32(), let value = take(valueLength) else { return nil }
            outputs.append(StageOutput(topic: String(decoding: topic, as: UTF8.self), key: key, value: value,
                                       partition: partition >= 0 ? partition : nil))
        }
        return i == bytes.count ? outputs : nil
    }
}
