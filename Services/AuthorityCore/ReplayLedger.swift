import Foundation
import HallmarkPostgres
import HallmarkRuntime
import Logging
import ServiceLifecycle
import Synchronization

/// Replay detection with group commit: concurrent validations hand in their token's replay
/// key and message id, and one statement per batch records them all in `seen_tokens`.
///
/// A key is fresh when it was never recorded, when its record expired (the window is
/// `HALLMARK_AUTHORITY_REPLAY_WINDOW_S`), or when the record holds the same message id: a
/// redelivered message is judged again exactly as the first time, never as a replay. Within
/// one batch, the first claim of a key decides; later claims of that key by other messages
/// are replays.
public final class ReplayLedger: Service, Sendable {
    struct Claim: Sendable {
        let key: Data
        let messageID: UUID
        let continuation: CheckedContinuation<Bool, any Error>
    }

    let pool: PostgresPool
    let schema: String
    let windowSeconds: Int
    let maxBatch: Int
    let writers: Int
    let logger: Logger
    private let queue = Mutex<[Claim]>([])
    private let wake: AsyncStream<Void>
    private let wakeContinuation: AsyncStream<Void>.Continuation

    /// Creates a ledger over `schema`.seen_tokens.
    /// `writers` batches may be in flight at once (PostgreSQL uses a core per connection).
    public init(pool: PostgresPool, schema: String, windowSeconds: Int, maxBatch: Int = 500, writers: Int = 3,
                logger: Logger) {
        self.pool = pool
        self.schema = schema
        self.windowSeconds = windowSeconds
        self.maxBatch = maxBatch
        self.writers = max(1, writers)
        self.logger = logger
        (wake, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    private let active = Mutex(0)

    /// Records the key for `messageID`; true when fresh, false when a replay. Throws when the
    /// database cannot be reached (the stage retries the message).
    public func claim(_ key: Data, messageID: UUID) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            queue.withLock { $0.append(Claim(key: key, messageID: messageID, continuation: continuation)) }
            wakeContinuation.yield()
        }
    }

    public func run() async throws {
        await withDiscardingTaskGroup { group in
            for await _ in wake.cancelOnGracefulShutdown() {
                // Up to `writers` batches in flight; each writer drains the queue, then ends.
                while startWriter() {
                    group.addTask { [self] in
                        while true {
                            let batch = takeBatch()
                            if batch.isEmpty { break }
                            await write(batch)
                        }
                        active.withLock { $0 -= 1 }
                        // Claims that arrived while this writer was finishing get a fresh look.
                        if queue.withLock({ !$0.isEmpty }) { wakeContinuation.yield() }
                    }
                }
            }
        }
        let left = queue.withLock { q -> [Claim] in
            defer { q.removeAll() }
            return q
        }
        for claim in left { claim.continuation.resume(throwing: CancellationError()) }
    }

    /// Reserves a writer slot when there is work and a free slot.
    private func startWriter() -> Bool {
        guard queue.withLock({ !$0.isEmpty }) else { return false }
        return active.withLock { n in
            guard n < writers else { return false }
            n += 1
            return true
        }
    }

    private func takeBatch() -> [Claim] {
        queue.withLock { q -> [Claim] in
            let n = min(q.count, maxBatch)
            let b = Array(q.prefix(n))
            q.removeFirst(n)
            return b
        }
    }

    private func write(_ batch: [Claim]) async {
        // The first claim of each key goes to the database; the rest follow it.
        var firstByKey: [Data: Claim] = [:]
        var order: [Data] = []
        for claim in batch where firstByKey[claim.key] == nil {
            firstByKey[claim.key] = claim
            order.append(claim.key)
        }
        // One key order for every batch, so concurrent batches never deadlock on each other.
        order.sort { $0.lexicographicallyPrecedes($1) }
        do {
            var values: PostgresQuery = ""
            let window = Double(windowSeconds)
            for (i, key) in order.enumerated() {
                let sep: PostgresQuery = i == 0 ? "" : ", "
                let id = firstByKey[key]!.messageID
                values = "\(values)\(sep)(\(key), \(id), now() + \(window) * interval '1 second')"
            }
            let rows = try await pool.query("""
                INSERT INTO \(unescaped: schema).seen_tokens AS s (token_hash, message_id, expires_at) VALUES \(values)
                ON CONFLICT (token_hash) DO UPDATE SET message_id = EXCLUDED.message_id, expires_at = EXCLUDED.expires_at
                WHERE s.expires_at <= now() OR s.message_id = EXCLUDED.message_id
                RETURNING token_hash
                """)
            let fresh = Set(try rows.map { try $0.column(0, as: Data.self) })
            for claim in batch {
                let first = firstByKey[claim.key]!
                let isFresh = fresh.contains(claim.key) && first.messageID == claim.messageID
                claim.continuation.resume(returning: isFresh)
            }
        } catch {
            logger.warning("replay records not written", metadata: ["claims": "\(batch.count)",
                                                                     "error": "\(ErrorPolicy.safeDescription(error))"])
            for claim in batch { claim.continuation.resume(throwing: error) }
        }
    }
}
