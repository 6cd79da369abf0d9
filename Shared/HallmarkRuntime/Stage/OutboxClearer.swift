import Foundation
import HallmarkPostgres
import Logging
import Synchronization

/// Forgets the inbox's copy of outputs once the broker acknowledged them, in batches (one
/// statement per interval rather than one per message). Losing a batch to a crash is
/// harmless: a redelivery then re-sends outputs that were already sent, with the same ids.
final class OutboxClearer: Sendable {
    let inbox: Inbox
    let pool: PostgresPool
    let logger: Logger
    let interval: Duration
    private let pending = Mutex<[UUID]>([])

    init(inbox: Inbox, pool: PostgresPool, logger: Logger, interval: Duration = .milliseconds(200)) {
        self.inbox = inbox
        self.pool = pool
        self.logger = logger
        self.interval = interval
    }

    /// These messages' outputs are acknowledged.
    func delivered(_ ids: [UUID]) { pending.withLock { $0 += ids } }

    /// Clears every interval until `stopped()`.
    func run(until stopped: @Sendable () -> Bool) async {
        while !stopped() {
            try? await Task.sleep(for: interval)
            await flush()
        }
    }

    /// Clears what is pending now.
    func flush() async {
        let ids = pending.withLock { p -> [UUID] in defer { p = [] }; return p }
        guard !ids.isEmpty else { return }
        do {
            for start in stride(from: 0, to: ids.count, by: 10_000) {
                try await inbox.clear(Array(ids[start..<min(ids.count, start + 10_000)]), pool: pool)
            }
        } catch {
            // Kept for the next flush; outputs left in the inbox are only re-sent on a redelivery.
            pending.withLock { $0 = Array(($0 + ids).suffix(1_000_000)) }
            logger.warning("sent outputs not cleared from the inbox", metadata: ["error": "\(ErrorPolicy.safeDescription(error))"])
        }
    }
}
