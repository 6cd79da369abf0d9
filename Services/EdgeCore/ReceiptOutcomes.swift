import Foundation
import HallmarkPostgres
import Logging
import ServiceLifecycle
import Synchronization

/// Hands each submission outcome, once it is stored, to the request of this replica waiting
/// for it.
///
/// The receipts stage (``ReceiptRecorder``, one consumer group for all replicas) is the one
/// reader of the aggregator's answers, and ``ReceiptStore/record(_:)`` the one writer of
/// outcomes. Each write names its receipts on the store's `NOTIFY` channel, which every
/// replica listens to; the replica where the request waits reads the outcome back, unless
/// its own receipts stage stored it and handed it over (``recording(_:_:)``). So a request
/// answers only with an outcome already stored, and a `GET` that follows, on any replica,
/// never says pending.
package final class ReceiptOutcomes: Service, Sendable {
    private let receipts: ReceiptStore
    private let listener: PostgresListener
    private let waiting = AnswerWaits<UUID>()
    private let listening = Atomic<Bool>(false)
    private let logger: Logger

    /// Listens with a connection of its own to the server `configuration` names.
    package init(receipts: ReceiptStore, configuration: PostgresConfiguration, logger: Logger) {
        self.receipts = receipts
        self.logger = logger
        listener = PostgresListener(configuration: configuration, channel: receipts.channel, logger: logger)
    }

    /// Whether outcomes are heard (readiness: before, a request would wait its whole time).
    package var isReady: Bool { listening.load(ordering: .acquiring) }

    package func run() async throws {
        await cancelWhenGracefulShutdown { [self] in
            await listener.run(
                listening: {
                    // What was recorded while nobody listened was told to nobody: read it.
                    await self.deliver(self.waiting.waiting())
                    self.listening.store(true, ordering: .releasing)
                },
                heard: { payloads in
                    let ids = payloads.flatMap { $0.split(separator: ",") }.compactMap { UUID(uuidString: String($0)) }
                    await self.deliver(self.waiting.waiting(among: ids))
                })
        }
        listening.store(false, ordering: .releasing)
        waiting.endAll()
    }

    /// Publishes with `publish`, then waits up to `timeout` for the receipt's stored outcome;
    /// nil when none came in time (the receipt is then pending).
    package func wait(for receipt: UUID, timeout: Duration, publish: () async throws -> Void) async throws -> [UInt8]? {
        try await waiting.request(receipt, timeout: timeout, send: publish)
    }

    /// The slot the receipt's stored outcome is handed to from now on, for a request that
    /// keeps its own deadline (filling it with nil) and ends the wait with ``forget(_:_:)``.
    func expect(_ receipt: UUID) -> AnswerSlot { waiting.expect(receipt) }

    /// Ends the wait of `slot` for `receipt`.
    func forget(_ receipt: UUID, _ slot: AnswerSlot) { waiting.forget(receipt, slot) }

    /// Runs `record` (``ReceiptStore/record(_:)`` for `ids`) and hands what it stored to this
    /// replica's waiting requests at once. While it runs, the notifications for those receipts
    /// are left unread here: that read would race this hand-over and cost a query per batch.
    /// Receipts it did not store (an answer was kept from before) and a failed write are read
    /// back as a notification would have them read.
    package func recording(
        _ ids: [UUID], _ record: () async throws -> [(receipt: UUID, result: [UInt8])]
    ) async throws {
        let claimed = waiting.claim(ids)
        defer { waiting.release(claimed) }
        let stored: [(receipt: UUID, result: [UInt8])]
        do {
            stored = try await record()
        } catch {
            await deliver(claimed)
            throw error
        }
        for (id, outcome) in stored { waiting.fill(id, with: outcome) }
        // Filled requests are gone from the waits, so this reads only the rest.
        await deliver(waiting.waiting(among: claimed, including: true))
    }

    /// Reads the outcomes of `ids` and hands each to its request. When the read fails, those
    /// requests wait on and answer pending at their deadline; the outcome stays stored.
    private func deliver(_ ids: [UUID]) async {
        guard !ids.isEmpty else { return }
        do {
            for (id, outcome) in try await receipts.outcomes(of: ids) { waiting.fill(id, with: outcome) }
        } catch {
            logger.warning("could not read recorded outcomes", metadata: ["count": "\(ids.count)", "error": "\(error)"])
        }
    }
}
