import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkPostgres
import Logging

extension Stage {
    /// Phase 2 for prepared messages under the stage's unit of work: one outcome each, in
    /// order. Nil when shutdown's grace ran out while retrying.
    func commitPhase(_ items: [(StageMessage, Processor.Prepared)]) async -> [CommitOutcome]? {
        switch configuration.unitOfWork {
        case .none, .perBatch:
            return await commitRetrying(items, limit: configuration.maxAttempts)
        case .perMessage:
            var all: [CommitOutcome] = []
            for item in items {
                guard let one = await commitRetrying([item], limit: configuration.maxAttempts) else { return nil }
                all += one
            }
            return all
        }
    }

    /// Retries transient failures without limit and others `limit` times; a batch that keeps
    /// failing is split, so only the poison message is rejected (`processing_failed`).
    private func commitRetrying(_ items: [(StageMessage, Processor.Prepared)], limit: Int) async -> [CommitOutcome]? {
        var attempt = 0
        while true {
            do {
                return try await commitOnce(items, attempt: attempt)
            } catch {
                attempt += 1
                if let rejection = rejection(for: error, attempts: attempt, limit: limit) {
                    guard items.count > 1 else { return [.rejected(rejection, recorded: false)] }
                    var all: [CommitOutcome] = []
                    for item in items {
                        // The batch already failed enough: each message gets two tries.
                        guard let one = await commitRetrying([item], limit: 2) else { return nil }
                        all += one
                    }
                    return all
                }
                if pastShutdownGrace { return nil }
                metrics.retries.increment()
                logger.warning("processing failed; retrying", metadata: [
                    "phase": "commit", "messages": "\(items.count)", "attempt": "\(attempt)",
                    "error": "\(ErrorPolicy.safeDescription(error))",
                ])
                try? await Task.sleep(for: backoff(attempt))
            }
        }
    }

    /// One attempt at phase 2.
    private func commitOnce(_ items: [(StageMessage, Processor.Prepared)], attempt: Int) async throws -> [CommitOutcome] {
        guard let inbox, let database else {
            let context = StageCommitContext(connection: nil, pool: database?.pool, logger: logger, attempt: attempt)
            let verdicts = try await verdicts(items, context)
            // No transaction to roll back: a result that cannot be sent is answered `oversized`.
            return verdicts.map { verdict in
                switch verdict {
                case .outputs(let outputs):
                    if let rejection = oversized(outputs) { return .rejected(rejection, recorded: false) }
                    return .processed(outputs, recorded: false)
                case .rejected(let rejection): return .rejected(rejection, recorded: false)
                }
            }
        }
        return try await commitTransactions(items, inbox: inbox, pool: database.pool, attempt: attempt)
    }

    /// Phase 2 in a transaction that records every message in the inbox with its outputs.
    /// A message already in the inbox (a redelivery), or one whose result would be too large,
    /// is taken out and the transaction runs again without it, so neither leaves effects.
    private func commitTransactions(_ items: [(StageMessage, Processor.Prepared)], inbox: Inbox, pool: PostgresPool,
                                    attempt: Int) async throws -> [CommitOutcome] {
        var outcomes = [CommitOutcome?](repeating: nil, count: items.count)
        // A message id seen twice in one unit: the first runs, the others are its redeliveries.
        var duplicates: [Int] = []
        var seen = Set<String>()
        var remaining: [Int] = []
        for i in items.indices {
            if seen.insert(items[i].0.header.id).inserted { remaining.append(i) } else { duplicates.append(i) }
        }
        while !remaining.isEmpty {
            let batch = remaining
            do {
                let taken = try await pool.transaction { connection in
                    try await transactionBody(batch, items, inbox: inbox, connection: connection, pool: pool,
                                              attempt: attempt)
                }
                for (i, outcome) in taken { outcomes[i] = outcome }
                remaining = []
            } catch let retry as RetryWithout {
                duplicates += retry.duplicates
                for (i, outcome) in retry.outcomes { outcomes[i] = outcome }
                let out = Set(retry.duplicates).union(retry.outcomes.map(\.0))
                remaining = batch.filter { !out.contains($0) }
            }
        }
        if !duplicates.isEmpty {
            let ids = duplicates.map { Self.uuid(items[$0].0) }
            let unsent = try await inbox.unsent(ids, pool: pool)
            for i in duplicates { outcomes[i] = .duplicate(unsent[Self.uuid(items[i].0)] ?? []) }
        }
        return outcomes.map { $0! }
    }

    /// One transaction's work: the processor's effects, then the inbox records.
    private func transactionBody(_ batch: [Int], _ items: [(StageMessage, Processor.Prepared)], inbox: Inbox,
                                 connection: PostgresConnection, pool: PostgresPool, attempt: Int) async throws
        -> [Int: CommitOutcome]
    {
        let context = StageCommitContext(connection: connection, pool: pool, logger: logger, attempt: attempt)
        let verdicts = try await verdicts(batch.map { items[$0] }, context)
        var entries: [Inbox.Entry] = []
        var index: [UUID: Int] = [:]
        var taken: [Int: CommitOutcome] = [:]
        var oversize: [(Int, CommitOutcome)] = []
        for (i, verdict) in zip(batch, verdicts) {
            let message = items[i].0
            let outputs: [StageOutput]
            switch verdict {
            case .outputs(let o):
                if let rejection = oversized(o) {
                    oversize.append((i, .rejected(rejection, recorded: false)))
                    continue
                }
                outputs = o
                taken[i] = .processed(o, recorded: true)
            case .rejected(let rejection):
                outputs = rejectionRecord(message.kafka, id: message.header.id, rejection)
                taken[i] = .rejected(rejection, recorded: true)
            }
            let id = Self.uuid(message)
            index[id] = i
            entries.append(Inbox.Entry(id: id, topic: message.kafka.topic, outputs: outputs))
        }
        let fresh = try await inbox.record(entries, on: connection)
        let redelivered = entries.filter { !fresh.contains($0.id) }.map { index[$0.id]! }
        guard redelivered.isEmpty && oversize.isEmpty else {
            throw RetryWithout(duplicates: redelivered, outcomes: oversize)
        }
        return taken
    }

    /// The envelope id, checked by intake.
    static func uuid(_ message: StageMessage) -> UUID { UUID(text: message.header.id)! }

    /// The processor's verdicts, exactly one per item.
    private func verdicts(_ items: [(StageMessage, Processor.Prepared)], _ context: StageCommitContext) async throws
        -> [StageVerdict]
    {
        let verdicts = try await processor.commit(items.map(\.1), context: context)
        guard verdicts.count == items.count else {
            throw StageRejection(.processingFailed, "\(verdicts.count) verdicts for \(items.count) messages")
        }
        return verdicts
    }
}

/// Rolls a unit's transaction back so it can run again without some messages.
struct RetryWithout: Error {
    let duplicates: [Int]
    let outcomes: [(Int, CommitOutcome)]
}
