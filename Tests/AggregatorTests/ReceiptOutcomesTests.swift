import Foundation
import HallmarkPostgres
import HallmarkTestSupport
import Logging
import Testing

@testable import EdgeCore

/// How a waiting request hears its outcome (`ReceiptOutcomes`, `ReceiptStore.record`), against
/// the real server: the receipts stage's write names the receipts, and what was written while
/// the replica did not listen is read once it listens again.
@Suite("Receipt outcomes", .timeLimit(.minutes(1)))
struct ReceiptOutcomesTests {
    /// Runs `body` with a receipts schema of its own and a `ReceiptOutcomes`, listening unless
    /// `listening` is false.
    private func withOutcomes(
        listening: Bool = true, _ body: (ReceiptStore, ReceiptOutcomes, PostgresPool) async throws -> Void
    ) async throws {
        let url = try #require(ProcessInfo.processInfo.environment["HALLMARK_POSTGRES_URL"], "source deploy/local/env.sh")
        var logger = Logger(label: "receipt-outcomes-test")
        logger.logLevel = .error
        let pool = PostgresPool(configuration: try PostgresConfiguration(url: url, poolSize: 4), logger: logger)
        defer { pool.close() }
        let schema = "edge_outcomes_" + UUID().uuidString.prefix(8).lowercased()
        _ = try await PostgresMigrations(schema: schema, migrations: EdgeMigrations.all(schema: schema))
            .apply(on: pool, logger: logger)
        let receipts = ReceiptStore(schema: schema, pool: pool)
        let outcomes = ReceiptOutcomes(receipts: receipts, configuration: pool.configuration, logger: logger)
        let running = listening ? Task { try await outcomes.run() } : nil
        defer { running?.cancel() }
        if listening { #expect(try await eventually(timeout: .seconds(10)) { outcomes.isReady }) }
        do {
            try await body(receipts, outcomes, pool)
        } catch {
            _ = try? await pool.execute("DROP SCHEMA \(unescaped: schema) CASCADE")
            throw error
        }
        _ = try await pool.execute("DROP SCHEMA \(unescaped: schema) CASCADE")
    }

    @Test func aRequestHearsItsOutcomeAndASecondAnswerChangesNothing() async throws {
        try await withOutcomes { receipts, outcomes, _ in
            let id = UUID()
            try await receipts.open(id)
            let heard = try await outcomes.wait(for: id, timeout: .seconds(20)) {
                try await receipts.record([(id, Array("first".utf8)), (UUID(), Array("no receipt".utf8))])
            }
            #expect(heard == Array("first".utf8))
            // The same bundle again: the same receipt, and its stored (first) outcome.
            let again = try await outcomes.wait(for: id, timeout: .seconds(20)) {
                try await receipts.record([(id, Array("second".utf8))])
            }
            #expect(again == Array("first".utf8))
            #expect(try await receipts.lookup(id) == .answered(Array("first".utf8)))
        }
    }

    @Test func anOutcomeRecordedWhileNobodyListenedReachesItsRequest() async throws {
        try await withOutcomes { receipts, outcomes, pool in
            let id = UUID()
            try await receipts.open(id)
            let heard = try await outcomes.wait(for: id, timeout: .seconds(20)) {
                // The listening session is ended (and gone: the call waits for it), so the
                // write's notification reaches nobody; only the read after listening again can.
                let ended = try await pool.query(
                    "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE query = \("LISTEN " + receipts.channel)"
                ).decode(Bool.self)
                #expect(ended == [true])
                try await receipts.record([(id, Array("while away".utf8))])
            }
            #expect(heard == Array("while away".utf8))
        }
    }

    /// The receipts stage of the replica where the request waits hands over what it stored:
    /// with nobody listening for notifications, the request still hears it at once. A second
    /// answer is not stored; the request then hears the first one, read back.
    @Test func anOutcomeThisReplicaStoredReachesItsRequestWithoutTheNotification() async throws {
        try await withOutcomes(listening: false) { receipts, outcomes, _ in
            let id = UUID()
            try await receipts.open(id)
            let heard = try await outcomes.wait(for: id, timeout: .seconds(20)) {
                try await outcomes.recording([id]) {
                    let stored = try await receipts.record([(id, Array("first".utf8)), (UUID(), Array("no receipt".utf8))])
                    #expect(stored.map(\.receipt) == [id])
                    return stored
                }
            }
            #expect(heard == Array("first".utf8))
            let again = try await outcomes.wait(for: id, timeout: .seconds(20)) {
                try await outcomes.recording([id]) {
                    let stored = try await receipts.record([(id, Array("second".utf8))])
                    #expect(stored.isEmpty)
                    return stored
                }
            }
            #expect(again == Array("first".utf8))
            #expect(try await receipts.lookup(id) == .answered(Array("first".utf8)))
        }
    }

    /// While a batch is being recorded, a notification for its receipts is not read here: the
    /// recording hands the answer over itself.
    @Test func aClaimedReceiptIsLeftToItsClaimant() async throws {
        let waits = AnswerWaits<Int>()
        let request = Task { try await waits.request(1, timeout: .seconds(20)) {} }
        #expect(try await eventually(timeout: .seconds(10)) { !waits.waiting().isEmpty })
        #expect(waits.claim([1, 2]) == [1])
        #expect(waits.waiting(among: [1, 2]).isEmpty && waits.waiting(among: [1], including: true) == [1])
        waits.release([1])
        #expect(waits.waiting(among: [1, 2]) == [1])
        waits.fill(1, with: [7])
        #expect(try await request.value == [7])
    }
}
