import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkPostgres
import HallmarkTestSupport
import Logging
import Testing

@testable import HallmarkRuntime

/// The audit trail in the real PostgreSQL: appends from concurrent transactions make one
/// chain without gaps, records fit their schema and name subjects only by blind index, and
/// every way of tampering with the table (an edited record, an edited column, a replaced
/// record, a deleted row, a deleted tail) is found at its position.
@Suite("Audit trail", .serialized, .timeLimit(.minutes(3)))
struct AuditTrailTests {
    static let key = Data(repeating: 7, count: 32)

    /// A fresh schema with the trail, and `count` records appended by `writers` concurrent
    /// transactions.
    static func trail(count: Int, writers: Int = 4) async throws -> (PostgresPool, AuditTrail, [StageOutput]) {
        let pool = PostgresPool(configuration: try .fromEnvironment(), logger: Logger(label: "audit-test"))
        let schema = "audit_\(UUID().uuidString.prefix(8).lowercased())"
        try await StageDatabase(pool: pool, schema: schema).migrate(
            AuditTrail.migrations(schema: schema),
            logger: Logger(label: "audit-test"))
        let trail = AuditTrail(schema: schema, service: "authority", topic: "audit", indexKey: key)
        let outputs = try await withThrowingTaskGroup(of: [StageOutput].self) { group in
            for w in 0..<writers {
                group.addTask {
                    var mine: [StageOutput] = []
                    for i in stride(from: w, to: count, by: writers) {
                        let entry: AuditTrail.Entry =
                            i % 3 == 2
                            ? .byService(.abuseBlacklist, subject: (.deviceSerial, "CAM-\(i % 5)"), reason: "validation_rate")
                            : .byOperator(
                                "op-1", i % 3 == 0 ? .blacklist : .retireTable,
                                subject: i % 3 == 0 ? (.deviceSerial, "CAM-\(i % 5)") : nil,
                                tableID: i % 3 == 0 ? nil : i, requestID: MessageID.random(),
                                outcome: i % 4 == 0 ? .rejected : .succeeded,
                                reason: i % 4 == 0 ? "unknown_device" : nil)
                        mine.append(try await pool.transaction { try await trail.append(entry, idSeed: "\(i)", on: $0) }.output)
                    }
                    return mine
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        return (pool, trail, outputs)
    }

    static func drop(_ pool: PostgresPool, _ trail: AuditTrail) async {
        _ = try? await pool.execute("DROP SCHEMA IF EXISTS \(unescaped: trail.schema) CASCADE")
        pool.close()
    }

    @Test func concurrentAppendsMakeOneIntactChain() async throws {
        let (pool, trail, outputs) = try await Self.trail(count: 60)
        let check = try await AuditChainCheck.run(schema: trail.schema, pool: pool, pageSize: 7)
        #expect(check.problem == nil && check.records == 60 && check.headSequence == 60)
        let schema = try JSONSchemaValidator.load(AuditRecord.schemaName)
        let records = try outputs.map { output in
            try schema.validate(bytes: output.value)
            #expect(output.topic == "audit" && output.key == Array("authority/\(trail.schema)".utf8))
            return try JSONCoding.decode(Message<AuditRecord>.self, from: output.value)
        }.sorted { $0.sequence < $1.sequence }
        #expect(records.map(\.sequence) == Array(1...60) && Message<AuditRecord>.firstBreak(in: records) == nil)
        #expect(records.last?.hash == check.headHash)
        // Subjects only as a keyed index: the same serial the same index, never the serial.
        let indexed = records.filter { $0.subjectType == .deviceSerial }
        #expect(!indexed.isEmpty && indexed.allSatisfy { $0.subjectIndex?.count == 64 })
        #expect(outputs.allSatisfy { !String(decoding: $0.value, as: UTF8.self).contains("CAM-") })
        #expect(trail.subjectIndex("CAM-1", type: .deviceSerial) == trail.subjectIndex("CAM-1", type: .deviceSerial))
        #expect(trail.subjectIndex("CAM-1", type: .deviceSerial) != trail.subjectIndex("CAM-2", type: .deviceSerial))
        let other = AuditTrail(schema: trail.schema, service: "authority", indexKey: Data(repeating: 8, count: 32))
        #expect(other.subjectIndex("CAM-1", type: .deviceSerial) != trail.subjectIndex("CAM-1", type: .deviceSerial))
        #expect(AuditTrail(schema: "s", service: "x", indexKey: nil).subjectIndex("CAM-1", type: .deviceSerial) == nil)
        #expect(records.filter { $0.tableID != nil }.allSatisfy { $0.subjectType == .tableID && $0.subjectIndex == nil })
        await Self.drop(pool, trail)
    }

    /// Each kind of tampering, on its own copy of a 12-record chain, is reported at its row.
    @Test func everyTamperingIsFoundAtItsPosition() async throws {
        let cases: [(String, AuditChainCheck.Problem, (String) -> String)] = [
            (
                "an edited record", .edited(sequence: 5),
                { s in
                    """
                    UPDATE \(s).hallmark_audit SET record = convert_to(replace(convert_from(record, 'UTF8'),
                        '"actor_key_id":"op-1"', '"actor_key_id":"op-2"'), 'UTF8') WHERE sequence = 5
                    """
                }
            ),
            (
                "an edited column", .edited(sequence: 4),
                { s in
                    """
                    UPDATE \(s).hallmark_audit SET subject_index = NULL WHERE sequence = 4
                    """
                }
            ),
            (
                "a record that is not one", .unreadable(sequence: 7),
                { s in
                    """
                    UPDATE \(s).hallmark_audit SET record = '\\x7b7d' WHERE sequence = 7
                    """
                }
            ),
            ("a deleted row", .missing(sequence: 6), { s in "DELETE FROM \(s).hallmark_audit WHERE sequence = 6" }),
            ("a deleted tail", .truncated(last: 9, head: 12), { s in "DELETE FROM \(s).hallmark_audit WHERE sequence > 9" }),
            (
                "a head moved back", .headMismatch(sequence: 12),
                { s in
                    "UPDATE \(s).hallmark_audit_head SET sequence = 11"
                }
            ),
        ]
        for (name, expected, tamper) in cases {
            let (pool, trail, _) = try await Self.trail(count: 12, writers: 1)
            try await pool.execute(PostgresQuery(stringLiteral: tamper(trail.schema)))
            let check = try await AuditChainCheck.run(schema: trail.schema, pool: pool, pageSize: 5)
            #expect(check.problem == expected, "\(name): \(String(describing: check.problem))")
            await Self.drop(pool, trail)
        }
        // A record replaced by a well-formed one with its own correct hash: the next one no
        // longer follows it.
        let (pool, trail, outputs) = try await Self.trail(count: 12, writers: 1)
        let message = try outputs.map { try JSONCoding.decode(Message<AuditRecord>.self, from: $0.value) }
            .first { $0.sequence == 3 }!
        let third = message.body
        let forged = try Message(
            chaining: AuditRecord(
                service: "authority",
                following: 2, previousHash: third.previousHash, occurredAt: third.occurredAt,
                actor: .operator, actorKeyID: "someone-else", action: third.action,
                subjectType: third.subjectType, subjectIndex: third.subjectIndex,
                tableID: third.tableID, outcome: third.outcome,
                reason: third.reason),
            id: message.id, producedAt: message.producedAt, requestID: message.requestID)
        try await pool.execute(
            """
            UPDATE \(unescaped: trail.schema).hallmark_audit SET record = \(Data(try JSONCoding.encode(forged)))
            WHERE sequence = 3
            """)
        #expect(try await AuditChainCheck.run(schema: trail.schema, pool: pool).problem == .unlinked(sequence: 4))
        await Self.drop(pool, trail)
    }
}
