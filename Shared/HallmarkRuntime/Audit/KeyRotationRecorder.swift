import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import HallmarkPostgres
import Logging
import ServiceLifecycle

/// Puts key rotations made outside the service into its audit trail: a new `kek.N` or
/// `current=` in the KEK file, a signing secret version added, retired or made current, a new
/// checkpoint key. Operators rotate these by editing files and restarting (or SIGHUP), so the
/// service compares the keys it holds with those its trail last saw (`hallmark_audit_keys`), at
/// start and at every reload, and appends one record per change (``changes(from:to:)``),
/// published on the audit topic after the commit.
///
/// Replicas starting together agree: the comparison runs under the trail's head lock, so the
/// second sees the first's inventory and records nothing. A key whose value changed under the
/// same id (`key_replaced`) is logged as an error too: data sealed under the old one is lost.
public struct KeyRotationRecorder: Service {
    let trail: AuditTrail
    let pool: PostgresPool
    let producer: any StageSink
    let logger: Logger
    let keys: [KeySet]
    let reloads: AsyncStream<[KeySet]>?

    /// - Parameters:
    ///   - keys: the keys held at start.
    ///   - reloads: the keys after each reload, when the service reloads them while running.
    public init(
        trail: AuditTrail, pool: PostgresPool, producer: any StageSink, logger: Logger, keys: [KeySet],
        reloads: AsyncStream<[KeySet]>? = nil
    ) {
        self.trail = trail
        self.pool = pool
        self.producer = producer
        self.logger = logger
        self.keys = keys
        self.reloads = reloads
    }

    /// Records the keys at start (failing the start when it cannot), then each reload's, until
    /// graceful shutdown.
    public func run() async throws {
        try await record(keys)
        guard let reloads else {
            try? await gracefulShutdown()
            return
        }
        for await sets in reloads.cancelOnGracefulShutdown() {
            do {
                try await record(sets)
            } catch {
                logger.error("key rotation not recorded", metadata: ["error": "\(ErrorPolicy.safeDescription(error))"])
            }
        }
    }

    /// Compares `sets` with the inventory, appends a record per change and updates the
    /// inventory in one transaction, then publishes the records. Returns them.
    @discardableResult
    public func record(_ sets: [KeySet]) async throws -> [Message<AuditRecord>] {
        let schema = trail.schema
        let appended = try await pool.withRetry(attempts: 10) {
            try await pool.transaction { connection in
                // The head lock orders this against every other append, this service's included.
                _ = try await connection.query("SELECT sequence FROM \(unescaped: schema).hallmark_audit_head FOR UPDATE")
                var appended: [(record: Message<AuditRecord>, output: StageOutput)] = []
                for set in sets {
                    let rows = try await connection.query(
                        """
                        SELECT key_id, check_value, is_current FROM \(unescaped: schema).hallmark_audit_keys
                        WHERE kind = \(set.action.rawValue)
                        """)
                    let seen = Dictionary(
                        uniqueKeysWithValues: try rows.decode((String, String, Bool).self).map {
                            ($0.0, (checkValue: $0.1, isCurrent: $0.2))
                        })
                    let changes = Self.changes(from: seen, to: set)
                    for change in changes {
                        appended.append(
                            try await trail.append(
                                .keyChange(set.action, keyID: change.keyID, reason: change.reason.rawValue),
                                idSeed: "\(set.action.rawValue)/\(change.keyID)/\(change.reason.rawValue)/\(UUID().uuidString)",
                                on: connection))
                    }
                    guard !changes.isEmpty else { continue }
                    try await connection.execute(
                        """
                        DELETE FROM \(unescaped: schema).hallmark_audit_keys WHERE kind = \(set.action.rawValue)
                        """)
                    for (id, check) in set.checkValues.sorted(by: { $0.key < $1.key }) {
                        try await connection.execute(
                            """
                            INSERT INTO \(unescaped: schema).hallmark_audit_keys (kind, key_id, check_value, is_current)
                            VALUES (\(set.action.rawValue), \(id), \(check), \(id == set.current))
                            """)
                    }
                }
                return appended
            }
        }
        for (record, _) in appended {
            let metadata: Logger.Metadata = [
                "action": "\(record.action.rawValue)", "key_id": "\(record.keyID ?? "")",
                "change": "\(record.reason ?? "")", "audit_sequence": "\(record.sequence)",
            ]
            if record.reason == Change.Reason.keyReplaced.rawValue {
                logger.error(
                    "a key changed its value under the same id: what it sealed or signed cannot be checked with it any more",
                    metadata: metadata)
            } else {
                logger.notice("key change recorded in the audit trail", metadata: metadata)
            }
        }
        if !appended.isEmpty {
            try await producer.send(
                appended.map { KafkaOutgoingMessage(topic: $0.output.topic, key: $0.output.key, value: $0.output.value) })
        }
        return appended.map(\.record)
    }
}
