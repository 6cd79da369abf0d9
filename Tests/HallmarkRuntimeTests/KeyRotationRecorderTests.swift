import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkKafka
import HallmarkMessages
import HallmarkPostgres
import HallmarkTestSupport
import Logging
import Testing

@testable import HallmarkRuntime

/// Key rotations made outside a service (a KEK file edited, a secret version added, a new
/// checkpoint key) become audit records: the diff rules on their own, then the recorder in the
/// real PostgreSQL and broker, with two replicas starting at once.
@Suite("Key rotation records", .serialized, .timeLimit(.minutes(3)))
struct KeyRotationRecorderTests {
    static func keks(_ versions: [UInt32: UInt8], current: UInt32) throws -> KeySet {
        .keks(try KeyEncryptionKeyring(keys: versions.mapValues { Data(repeating: $0, count: 32) }, currentVersion: current))
    }

    static func seen(_ set: KeySet) -> [String: (checkValue: String, isCurrent: Bool)] {
        set.checkValues.mapValues { ($0, false) }.merging([set.current: (set.checkValues[set.current]!, true)]) { $1 }
    }

    @Test func changesBetweenTwoKeySets() throws {
        typealias C = KeyRotationRecorder.Change
        let one = try Self.keks([1: 1], current: 1)
        #expect(
            KeyRotationRecorder.changes(from: [:], to: one) == [
                C(keyID: "kek.1", reason: .keyAdded),
                C(keyID: "kek.1", reason: .currentKeyChanged),
            ])
        #expect(KeyRotationRecorder.changes(from: Self.seen(one), to: one).isEmpty, "nothing changed")
        let two = try Self.keks([1: 1, 2: 2], current: 2)
        #expect(
            KeyRotationRecorder.changes(from: Self.seen(one), to: two) == [
                C(keyID: "kek.2", reason: .keyAdded),
                C(keyID: "kek.2", reason: .currentKeyChanged),
            ])
        let added = try Self.keks([1: 1, 2: 2], current: 1)
        #expect(
            KeyRotationRecorder.changes(from: Self.seen(one), to: added) == [C(keyID: "kek.2", reason: .keyAdded)],
            "a key added but not yet current")
        let retired = try Self.keks([2: 2], current: 2)
        #expect(KeyRotationRecorder.changes(from: Self.seen(two), to: retired) == [C(keyID: "kek.1", reason: .keyRemoved)])
        let replaced = try Self.keks([1: 9, 2: 2], current: 2)
        #expect(KeyRotationRecorder.changes(from: Self.seen(two), to: replaced) == [C(keyID: "kek.1", reason: .keyReplaced)])
    }

    @Test func keySetsHoldIdsAndCheckValuesOnly() throws {
        let material = Data(repeating: 0x5A, count: 32)
        let set = KeySet(.signingSecretRotation, keys: [("v1", material), ("bad id/with space", Data([1]))], current: "v1")
        #expect(set.checkValues.keys.contains("v1"))
        let digestID = try #require(set.checkValues.keys.first { $0 != "v1" })
        #expect(digestID.hasPrefix("id-") && digestID.count == 35, "an id the schema refuses is replaced by a digest")
        #expect(set.checkValues["v1"]!.count == 16 && !set.checkValues["v1"]!.contains(Hex.encode(material).prefix(8)))
        #expect(
            KeySet(.signingSecretRotation, keys: [("v1", Data([2]))], current: "v1").checkValues["v1"] != set.checkValues["v1"])
    }

    @Test func publishedCopyCatchesARewrittenTable() {
        let table: [Int64: String] = [1: "a", 2: "b", 3: "c"]
        #expect(
            AuditCopyCheck.compare(table: table, published: [(1, "a"), (2, "b"), (2, "b"), (3, "c")])
                == AuditCopyCheck(matched: 3, unpublished: 0, problem: nil), "duplicates on the topic agree")
        #expect(AuditCopyCheck.compare(table: table, published: [(2, "b"), (3, "c")]).unpublished == 1, "past retention")
        #expect(
            AuditCopyCheck.compare(table: table, published: [(1, "a"), (2, "x"), (3, "y")]).problem == .rewritten(sequence: 2))
        #expect(AuditCopyCheck.compare(table: [1: "a"], published: [(1, "a"), (2, "b")]).problem == .deleted(sequence: 2))
    }

    @Test func recordsEachChangeOnceAcrossReplicas() async throws {
        let logger = Logger(label: "key-rotation-test")
        let pool = PostgresPool(configuration: try .fromEnvironment(), logger: logger)
        let id = UUID().uuidString.prefix(8).lowercased()
        let schema = "keys_\(id)", topic = "test.audit.\(id)"
        try await StageDatabase(pool: pool, schema: schema).migrate(AuditTrail.migrations(schema: schema), logger: logger)
        let kafka = try KafkaConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
        try await KafkaAdmin(configuration: kafka, logger: logger).createTopics([topic])
        let producer = try KafkaProducer(configuration: kafka, logger: logger)
        let trail = AuditTrail(schema: schema, service: "gateway", topic: topic, indexKey: nil)
        func recorder(_ sets: [KeySet]) -> KeyRotationRecorder {
            KeyRotationRecorder(trail: trail, pool: pool, producer: producer, logger: logger, keys: sets)
        }
        let secrets = KeySet(.signingSecretRotation, keys: [("v1", Data("one".utf8))], current: "v1")
        let start = [try Self.keks([1: 1], current: 1), secrets]
        // Two replicas start at once: the second sees the first's inventory.
        async let a = recorder(start).record(start)
        async let b = recorder(start).record(start)
        let first = try await a + b
        #expect(
            first.map { "\($0.action.rawValue) \($0.keyID!) \($0.reason!)" }.sorted() == [
                "kek_rotation kek.1 current_key_changed", "kek_rotation kek.1 key_added",
                "signing_secret_rotation v1 current_key_changed", "signing_secret_rotation v1 key_added",
            ])
        #expect(try await recorder(start).record(start).isEmpty, "a restart with the same keys records nothing")
        // The operator adds kek.2 and makes it current, and replaces v1's value by mistake.
        let next = [
            try Self.keks([1: 1, 2: 2], current: 2),
            KeySet(.signingSecretRotation, keys: [("v1", Data("uno".utf8))], current: "v1"),
        ]
        let rotated = try await recorder(next).record(next)
        #expect(
            rotated.map { "\($0.keyID!) \($0.reason!)" } == ["kek.2 key_added", "kek.2 current_key_changed", "v1 key_replaced"])

        let check = try await AuditChainCheck.run(schema: schema, pool: pool)
        #expect(check.problem == nil && check.records == 7)
        let recordSchema = try JSONSchemaValidator.load(AuditRecord.schemaName)
        let consumer = try KafkaConsumer(configuration: kafka, groupID: "reader-\(UUID())", topics: [topic], logger: logger)
        try consumer.start()
        var published: [AuditRecord] = []
        for await message in consumer.messages {
            try recordSchema.validate(bytes: message.value)
            #expect(message.key == Array("gateway/\(schema)".utf8))
            published.append(try JSONCoding.decode(Message<AuditRecord>.self, from: message.value).body)
            if published.count == 7 { break }
        }
        await consumer.close()
        #expect(
            AuditCopyCheck.compare(table: check.hashes, published: published.map { (Int64($0.sequence), $0.hash) })
                == AuditCopyCheck(matched: 7, unpublished: 0, problem: nil))
        #expect(published.allSatisfy { $0.actor == .service && $0.outcome == .succeeded && $0.subjectIndex == nil })
        await producer.close()
        _ = try? await pool.execute("DROP SCHEMA \(unescaped: schema) CASCADE")
        pool.close()
    }
}
