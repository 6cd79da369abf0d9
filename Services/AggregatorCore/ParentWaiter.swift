import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkKafka
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime
import Logging
import ServiceLifecycle

/// Judges the submissions waiting for a parent (``ParentWaits``) again, every ``interval``:
/// those whose parent is now in the log or under their token, and those whose window is over.
/// Each pass is one transaction over the waits it locks (`SKIP LOCKED`: replicas share them),
/// after the locks of their tokens (``CaptureTokens``, taken first as the intake takes them):
/// - a parent under the token: derived, it follows the token's root (``SubmissionLedger/follow(_:on:)``);
/// - its parents in the log: asked about, as the intake asks (its token request is recorded in
///   its row, ``SubmissionLedger/ask(_:on:)``, and sent);
/// - a parent known at its child's level or above: `invalid_provenance`, recorded (final);
/// - still a parent known nowhere: it waits on, until its window is over; then
///   `invalid_provenance`, not recorded (``SubmissionLedger/withdraw(_:on:)``).
///
/// The pass's outputs are sent before it commits: a crash in between sends them again (same
/// ids), never loses them.
package struct ParentWaiter: Service {
    let configuration: AggregatorConfiguration
    /// The waits, capture tokens, ledger and log it judges with, the writer it wakes.
    let flow: SubmissionFlow
    let pool: PostgresPool
    let producer: any StageSink
    let metrics: AggregatorMetrics
    let logger: Logger
    /// How often the waits are looked at.
    let interval: Duration

    package init(
        configuration: AggregatorConfiguration, flow: SubmissionFlow, pool: PostgresPool, producer: any StageSink,
        metrics: AggregatorMetrics, logger: Logger, interval: Duration = .milliseconds(200)
    ) {
        self.configuration = configuration
        self.flow = flow
        self.pool = pool
        self.producer = producer
        self.metrics = metrics
        self.logger = logger
        self.interval = interval
    }

    package func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                while try await pass() > 0 && !Task.isShuttingDownGracefully {}
            } catch {
                logger.warning("parent wait pass failed", metadata: ["error": "\(ErrorPolicy.safeDescription(error))"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }

    /// One pass; returns how many waits it ended.
    func pass(limit: Int = 500) async throws -> Int {
        let ready = try await pool.withConnection { try await flow.waits.ready(limit: limit, on: $0) }
        guard !ready.isEmpty else { return 0 }
        let (ended, queued) = try await pool.transaction { connection -> (Int, Bool) in
            let known = try await flow.captures.lockAndLoad(Array(Set(ready.compactMap(\.token))), on: connection)
            let locked = try await flow.waits.lock(ready.map(\.submission), on: connection)
            let ledger = flow.ledger
            let records = try await ledger.validating(locked.map(\.submission), on: connection)
            let judged = locked.compactMap { wait in records[wait.submission].map { (wait, $0, Provenance($0.entries)) } }
            let logged = try await flow.log.parentLevels(judged.map(\.2), on: connection)
            let uses = judged.map { wait, record, provenance in
                let token = try? JSONCoding.decode(Message<TokenRequest>.self, from: wait.request).body.token
                return flow.captures.use(record, provenance, token: token.flatMap(flow.captures.digest) ?? Data(), logged: logged)
            }
            let verdicts = judge(uses, known: known)
            var asks: [(submission: UUID, ask: SubmissionLedger.TokenAsk)] = []
            var derived: [(id: UUID, root: UUID)] = []
            var refused: [(record: SubmissionRecord, reason: SubmissionResult.Reason)] = []
            var late: [(id: UUID, due: Int64)] = []
            for ((wait, record, _), verdict) in zip(judged, verdicts.verdicts) {
                switch verdict {
                case .ask: asks.append((record.id, .init(correlationID: wait.correlationID, request: wait.request)))
                case .derived(let root): derived.append((record.id, root))
                case .invalidProvenance: refused.append((record, .invalidProvenance))
                case .waits: if wait.expired { late.append((record.id, wait.due)) }
                }
            }
            try await flow.captures.record(verdicts.tokens, on: connection)
            let requests = try await ledger.ask(asks, on: connection)
            let followed = try await ledger.follow(derived, on: connection)
            let answers = try await ledger.refuse(refused, on: connection)
            let decided = asks.map(\.submission) + derived.map(\.id) + refused.map(\.record.id)
            try await flow.waits.remove(decided, on: connection)
            // Forgetting a submission ends its wait too (the row cascades).
            let withdrawn = try await ledger.withdraw(late, on: connection)
            let outputs =
                requests + refused.compactMap { answers[$0.record.id] }
                + derived.compactMap { followed.outputs[$0.id] } + withdrawn
            for _ in 0..<(refused.count + late.count) { metrics.submission(SubmissionResult.Reason.invalidProvenance.rawValue) }
            for _ in derived { metrics.derived.increment() }
            // Before the commit: after it, a crash would lose them; sent twice, they keep their ids.
            if !outputs.isEmpty { try await producer.send(outputs) }
            return (decided.count + late.count, followed.queued)
        }
        if queued { flow.writerBell.ring() }
        return ended
    }

    /// The token's judgement (``CaptureTokens/judge(_:known:)``) for uses with a token; the
    /// log's alone for those without (an empty digest).
    private func judge(
        _ uses: [CaptureTokens.Use], known: [Data: CaptureTokens.Known]
    ) -> (verdicts: [CaptureTokens.Verdict], tokens: [Data: CaptureTokens.Known]) {
        let tokened = uses.indices.filter { !uses[$0].token.isEmpty }
        let judged = CaptureTokens.judge(tokened.map { uses[$0] }, known: known)
        var verdicts = uses.map { $0.holdsInLog ? CaptureTokens.Verdict.ask : CaptureTokens.refusal($0, under: [:]) }
        for (i, verdict) in zip(tokened, judged.verdicts) { verdicts[i] = verdict }
        return (verdicts, judged.tokens)
    }
}
