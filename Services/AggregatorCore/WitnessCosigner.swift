import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkPostgres
import Logging
import Metrics
import ServiceLifecycle

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Asks the policy's witnesses to cosign the log's latest checkpoint (C2SP tlog-witness), off
/// the append path: after each round it waits `interval`, whatever the commit rate, so the
/// witnesses see at most one checkpoint per interval from a replica. Per witness it
/// keeps the size the witness last cosigned (`witness_sizes`) and sends the consistency proof
/// from there; their cosignatures are kept per tree size (`cosignatures`) and served with the
/// checkpoint.
///
/// - 200: the cosignature lines that verify under the witness's vkey are kept.
/// - 409: the witness names the size it holds: the request is made again from there, once.
/// - 403, 404, 422, 400, a timeout or no connection: logged and counted per witness; the next
///   round tries again (the witness's size is unchanged, so nothing is lost).
package struct WitnessCosigner: Service {
    let policy: TransparencyPolicy
    let store: LogStore
    let pool: PostgresPool
    let interval: Duration
    let timeout: Duration
    let logger: Logger
    let session: URLSession
    /// Where the per-witness metrics go (the process's metrics system unless a test says).
    let metrics: any MetricsFactory
    private let progress = WitnessProgress.Cell()
    private let witnessedSize: Meter
    private let unwitnessed: Meter

    package init(
        policy: TransparencyPolicy, store: LogStore, pool: PostgresPool, interval: Duration, timeout: Duration,
        deadline: Duration = AggregatorConfiguration.declared(\.witnessDeadline),
        logger: Logger, metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        self.metrics = metrics
        let service = [("service", "aggregator")]
        witnessedSize = Meter(label: "hallmark_aggregator_witnessed_tree_size", dimensions: service, factory: metrics)
        unwitnessed = Meter(
            label: "hallmark_aggregator_checkpoint_unwitnessed_seconds", dimensions: service, factory: metrics)
        Meter(label: "hallmark_aggregator_witness_deadline_seconds", dimensions: service, factory: metrics)
            .set(Self.seconds(deadline))
        self.policy = policy
        self.store = store
        self.pool = pool
        self.interval = interval
        self.timeout = timeout
        self.logger = logger
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = Self.seconds(timeout)
        session = URLSession(configuration: configuration)
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await round()
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// One round: every witness with a URL is asked about the latest checkpoint, concurrently.
    package func round() async {
        guard let latest = try? await pool.withConnection({ try await store.latestCheckpoint(on: $0) }),
            let text = latest.note, let note = try? SignedNote.parse(Array(text.utf8))
        else { return }
        // The checkpoint goes out with the log's own signatures only (its origin's), not the
        // cosignatures already gathered.
        guard let origin = try? CheckpointText(parsing: note.text).origin else { return }
        let bare = SignedNote(text: note.text, signatures: note.signatures.filter { $0.name == origin })
        await withTaskGroup(of: Void.self) { group in
            for witness in policy.witnesses where witness.url != nil {
                group.addTask { await cosign(bare, size: latest.treeSize, by: witness) }
            }
        }
        await observe()
    }

    /// Sets the witnessing gauges (``WitnessProgress``) from the latest checkpoint as stored,
    /// with the cosignatures gathered so far.
    package func observe(now: Date = Date()) async {
        guard let latest = try? await pool.withConnection({ try await store.latestCheckpoint(on: $0) }) else { return }
        let witnessed = LogVerifier.isWitnessed(latest, by: policy)
        let (size, waited) = progress.state.withLock { p in
            p.observe(
                size: latest.treeSize, signedAt: Date(timeIntervalSince1970: TimeInterval(latest.timestamp)),
                witnessed: witnessed)
            return (p.witnessedSize, p.unwitnessedSeconds(now: now))
        }
        witnessedSize.set(Int64(clamping: size))
        unwitnessed.set(waited)
    }

    private func cosign(_ checkpoint: SignedNote, size: UInt64, by witness: TransparencyPolicy.Witness) async {
        let started = ContinuousClock.now
        do {
            var old = try await pool.withConnection { try await store.witnessSize(witness.key, on: $0) } ?? 0
            guard old < size else { return }
            for attempt in 0..<2 {
                let proof =
                    old == 0
                    ? []
                    : try await pool.withConnection {
                        try await store.consistencyProof(old: Int64(old), new: Int64(size), on: $0)
                    }
                let request = AddCheckpointRequest(oldSize: old, proof: proof, checkpoint: checkpoint)
                let (status, body) = try await post(request.formatted, to: witness.url!)
                switch status {
                case 200:
                    let lines = try verifiedLines(body, of: checkpoint, by: witness)
                    try await pool.withConnection { connection in
                        try await store.keep(cosignatures: lines, size: size, by: witness.key, on: connection)
                    }
                    count(witness, "cosigned", since: started)
                    return
                case 409 where attempt == 0:
                    guard let held = UInt64(body.trimmingCharacters(in: .newlines)), held <= size else {
                        count(witness, "conflict", since: started)
                        logger.error(
                            "a witness holds a size this log does not have",
                            metadata: ["witness": "\(witness.name)", "body": "\(body.prefix(32))"])
                        return
                    }
                    old = held
                default:
                    count(witness, "refused_\(status)", since: started)
                    logger.error(
                        "a witness refused the checkpoint",
                        metadata: ["witness": "\(witness.name)", "status": "\(status)", "size": "\(size)"])
                    return
                }
            }
        } catch {
            count(witness, "unreachable", since: started)
            logger.warning("a witness could not be asked", metadata: ["witness": "\(witness.name)", "error": "\(error)"])
        }
    }

    /// The response's signature lines that are this witness's and verify over the checkpoint.
    private func verifiedLines(
        _ body: String, of checkpoint: SignedNote, by witness: TransparencyPolicy.Witness
    ) throws
        -> [SignedNote.Signature]
    {
        let note = try SignedNote.parse(Array((checkpoint.text + "\n" + body).utf8))
        _ = try note.verified(by: [witness.key])
        return note.signatures.filter { $0.name == witness.key.name && $0.keyID == witness.key.keyID }
    }

    private func post(_ body: String, to prefix: String) async throws -> (Int, String) {
        guard let url = URL(string: prefix.hasSuffix("/") ? prefix + "add-checkpoint" : prefix + "/add-checkpoint") else {
            throw WitnessCosignerError("the witness URL is not a URL")
        }
        var request = URLRequest(url: url, timeoutInterval: Self.seconds(timeout))
        request.httpMethod = "POST"
        request.httpBody = Data(body.utf8)
        request.setValue("text/plain; charset=utf-8", forHTTPHeaderField: "Content-Type")
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw WitnessCosignerError("not an HTTP response") }
        return (http.statusCode, String(decoding: data.prefix(16 * 1024), as: UTF8.self))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private func count(_ witness: TransparencyPolicy.Witness, _ outcome: String, since started: ContinuousClock.Instant) {
        let dimensions = [("service", "aggregator"), ("witness", witness.name), ("outcome", outcome)]
        Counter(label: "hallmark_aggregator_witness_requests_total", dimensions: dimensions, factory: metrics).increment()
        Timer(
            label: "hallmark_aggregator_witness_seconds", dimensions: [("service", "aggregator"), ("witness", witness.name)],
            factory: metrics
        ).recordInterval(since: started)
    }
}

/// Why a witness could not be asked.
struct WitnessCosignerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Timer {
    fileprivate func recordInterval(since started: ContinuousClock.Instant) {
        recordNanoseconds((ContinuousClock.now - started).nanoseconds)
    }
}
