import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import HallmarkPostgres
import Logging

extension Stage {
    /// Phase 2 for prepared messages under the stage's unit of work: one outcome each, in
    /// order. Nil when shutdown's grace ran out while retrying.
    func commitPhase(_ items: [(StageMessage, Processor.Prepared)]) async -> [CommitOutcome]? {
        switch processor.unitOfWork {
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
        try? await retryPolicy.run { failures -> [CommitOutcome]? in
            try await commitOnce(items, attempt: failures)
        } onFailure: { error, failures in
            if let rejection = rejection(for: error, attempts: failures, limit: limit) {
                guard items.count > 1 else { return .stop([.rejected(rejection)]) }
                var all: [CommitOutcome] = []
                for item in items {
                    // The batch already failed enough: each message gets two tries.
                    guard let one = await commitRetrying([item], limit: 2) else { return .stop(nil) }
                    all += one
                }
                return .stop(all)
            }
            if pastShutdownGrace { return .stop(nil) }
            metrics.retries.increment()
            logger.warning(
                "processing failed; retrying",
                metadata: [
                    "phase": "commit", "messages": "\(items.count)", "attempt": "\(failures)",
                    "error": "\(ErrorPolicy.safeDescription(error))",
                ])
            return .retry
        }
    }

    /// One attempt at phase 2.
    private func commitOnce(_ items: [(StageMessage, Processor.Prepared)], attempt: Int) async throws -> [CommitOutcome] {
        guard let inbox, let database else {
            let context = StageCommitContext(logger: logger, attempt: attempt)
            let verdicts = try await verdicts(items, context)
            context.hooks.run()
            // No transaction to roll back: a result that cannot be sent is answered `oversized`.
            return verdicts.map { verdict in
                switch verdict {
                case .outputs(let outputs):
                    if let rejection = oversized(outputs) { return .rejected(rejection) }
                    return .processed(outputs)
                case .rejected(let rejection): return .rejected(rejection)
                }
            }
        }
        return try await commitTransactions(items, inbox: inbox, pool: database.pool, attempt: attempt)
    }

    /// Phase 2 in a transaction that records every message in the inbox with its outputs.
    /// A message whose id is already in the inbox, or one whose result would be too large, is
    /// taken out and the transaction runs again without it, so neither leaves effects; the
    /// first is then judged against the record of its id (``sighted(_:_:)``).
    private func commitTransactions(
        _ items: [(StageMessage, Processor.Prepared)], inbox: Inbox, pool: PostgresPool,
        attempt: Int
    ) async throws -> [CommitOutcome] {
        var outcomes = [CommitOutcome?](repeating: nil, count: items.count)
        // An id seen twice in one unit: the first runs, the others are judged against it.
        var first: [UUID: Int] = [:]
        var again: [Int] = []
        var remaining: [Int] = []
        for i in items.indices {
            let id = Self.uuid(items[i].0)
            if first[id] == nil { first[id] = i; remaining.append(i) } else { again.append(i) }
        }
        var recorded: [Int] = []
        while !remaining.isEmpty {
            let batch = remaining
            do {
                let hooks = StageCommitHooks()
                let taken = try await pool.transaction { connection in
                    try await transactionBody(
                        batch, items, inbox: inbox, connection: connection, pool: pool,
                        attempt: attempt, hooks: hooks)
                }
                hooks.run()
                for (i, outcome) in taken { outcomes[i] = outcome }
                remaining = []
            } catch let retry as RetryWithout {
                recorded += retry.duplicates
                for (i, outcome) in retry.outcomes { outcomes[i] = outcome }
                let out = Set(retry.duplicates).union(retry.outcomes.map(\.0))
                remaining = batch.filter { !out.contains($0) }
            }
        }
        if !recorded.isEmpty {
            let records = try await inbox.records(recorded.map { Self.uuid(items[$0].0) }, pool: pool)
            for i in recorded { outcomes[i] = sighted(items[i].0, records[Self.uuid(items[i].0)]) }
        }
        for i in again {
            let j = first[Self.uuid(items[i].0)]!
            let earlier = items[j].0
            let record = Inbox.Record(
                topic: earlier.kafka.topic, digest: earlier.contentDigest,
                partition: earlier.kafka.partition, offset: earlier.kafka.offset, outputs: nil)
            outcomes[i] = sighted(items[i].0, record, firstOutcome: outcomes[j])
        }
        return outcomes.map { $0! }
    }

    /// What a message whose id was seen before gets (DESIGN §2, ids): a redelivery its first
    /// answer; the same content published again the same, unless the processor refuses a resent
    /// message (a signed command's replay); other content or another topic `id_reused`.
    /// `firstOutcome` is the outcome of the earlier message in the same unit, if it was there.
    func sighted(_ message: StageMessage, _ record: Inbox.Record?, firstOutcome: CommitOutcome? = nil) -> CommitOutcome {
        // No record: the earlier message was not recorded (its result was too large).
        guard let record else { return firstOutcome.map(Self.repeated) ?? .duplicate([]) }
        switch Inbox.sighting(of: message, against: record) {
        case .reused(let otherTopic):
            return .rejected(idReused(message, otherTopic: otherTopic))
        case .resent:
            do {
                if let rejection = try processor.refuse(resent: message) { return .rejected(rejection) }
            } catch let rejection as StageRejection {
                return .rejected(rejection)
            } catch {
                logger(for: message.kafka, id: message.header.id).warning(
                    "resent message not judged",
                    metadata: [
                        "error": "\(ErrorPolicy.safeDescription(error))"
                    ])
            }
            fallthrough
        case .redelivery:
            if let firstOutcome { return Self.repeated(firstOutcome) }
            guard let outputs = record.outputs else {
                return .rejected(StageRejection(.answerExpired, "a redelivery whose answer was already forgotten"))
            }
            return .duplicate(outputs)
        }
    }

    /// The outcome of an earlier message, for its redelivery in the same unit.
    private static func repeated(_ outcome: CommitOutcome) -> CommitOutcome {
        switch outcome {
        case .processed(let outputs), .duplicate(let outputs), .rejected(_, recorded: let outputs?): .duplicate(outputs)
        case .rejected(let rejection, recorded: nil): .rejected(rejection)
        }
    }

    /// `id_reused`, with a security event naming the id (never the bytes).
    func idReused(_ message: StageMessage, otherTopic: Bool) -> StageRejection {
        let relation = otherTopic ? "other_topic" : "other_bytes"
        let detail =
            otherTopic
            ? "the id was already used on another topic of this service"
            : "the id was already used for other content on this topic"
        let event = SecurityEvent(
            service: configuration.service, instance: configuration.instance,
            event: .idReused, severity: .warning, reason: relation)
        let id = RefusedMessage.placeID(message.header.id, message.kafka, "id-reused")
        let eventMessage = Message(event, id: id, requestID: message.header.id)
        guard let output = try? StageOutput.json(topic: configuration.securityTopic, key: nil, eventMessage) else {
            return StageRejection(.idReused, detail)
        }
        return StageRejection(.idReused, detail, sending: [output])
    }

    /// One transaction's work: the processor's effects, then the inbox records.
    private func transactionBody(
        _ batch: [Int], _ items: [(StageMessage, Processor.Prepared)], inbox: Inbox,
        connection: PostgresConnection, pool: PostgresPool, attempt: Int, hooks: StageCommitHooks
    ) async throws
        -> [Int: CommitOutcome]
    {
        let context = StageCommitContext(connection: connection, logger: logger, attempt: attempt, hooks: hooks)
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
                    oversize.append((i, .rejected(rejection)))
                    continue
                }
                outputs = o
                taken[i] = .processed(o)
            case .rejected(let rejection):
                outputs = rejectionRecord(
                    message.kafka, id: message.header.id, rejection,
                    refused: RefusedMessage(message, reason: rejection.reason))
                taken[i] = .rejected(rejection, recorded: outputs)
            }
            let id = Self.uuid(message)
            index[id] = i
            entries.append(Inbox.Entry(id: id, message: message, outputs: outputs))
        }
        let fresh = try await inbox.record(entries, on: connection)
        let redelivered = entries.filter { !fresh.contains($0.id) }.map { index[$0.id]! }
        guard redelivered.isEmpty && oversize.isEmpty else {
            throw RetryWithout(duplicates: redelivered, outcomes: oversize)
        }
        return taken
    }

    /// The envelope id, checked by intake.
    static func uuid(_ message: StageMessage) -> UUID { message.header.id.uuid }

    /// The processor's verdicts, exactly one per item.
    private func verdicts(
        _ items: [(StageMessage, Processor.Prepared)], _ context: StageCommitContext
    ) async throws
        -> [StageVerdict]
    {
        // A closure, not `\.1`: a key path through the generic `Prepared` is instantiated at
        // run time on every call (swift_getKeyPath showed at 5% of a no-op stage's CPU).
        let verdicts = try await processor.commit(items.map { $0.1 }, context: context)
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
