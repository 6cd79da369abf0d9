import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import NIOCore
import Synchronization

/// Verification over HTTP (`GET /api/v1/verify/{image_hash}`, `GET /api/v1/proof/{image_hash}`,
/// `GET /api/v1/blockchain/verify/{image_hash}`): the aggregator's answer
/// (`hallmark.log.verify.result.v1`, asked over Kafka) rendered once as the reference verifier's
/// JSON, as a C2SP tlog-proof and as the reference node's answer, and cached until the next
/// checkpoint, so a photo checked by many costs the aggregator one question per checkpoint.
/// Concurrent questions about one hash share one request. It also keeps the latest signed
/// checkpoint it heard of, for `GET /api/v1/blockchain/status`.
package final class Verifications: Sendable {
    /// One answer, rendered.
    /// Its bodies are kept as buffers, so a cached read hands out the same storage.
    package struct Answer: Sendable {
        /// The size of the checkpoint it was answered against.
        let treeSize: UInt64
        /// The reference verifier's fields, then the record, leaf index, tree size, signed
        /// checkpoint and inclusion proof.
        let json: ByteBuffer
        /// The C2SP tlog-proof (found, with a signed note), else nil.
        let proof: ByteBuffer?
        /// The reference node's `HashVerification` (``node(_:hash:)``).
        let node: ByteBuffer

        /// Its ETag: the tree size it was answered against.
        var eTag: String { "\"size-\(treeSize)\"" }
    }

    private struct State {
        var latest: UInt64 = 0
        /// The latest signed checkpoint heard of (published, or in an answer).
        var head: SignedCheckpoint?
        var cache: [String: Answer] = [:]
        var inFlight: [String: Task<Answer, any Error>] = [:]

        /// The cached answer about `hash` unless a later checkpoint made it stale.
        func current(_ hash: String) -> Answer? { cache[hash].flatMap { $0.treeSize >= latest ? $0 : nil } }
    }

    private let state = Mutex(State())
    private let limit: Int
    /// Asks the log a question and waits; nil when no answer came in time.
    private let asking: @Sendable (LogVerifyRequest) async throws -> [UInt8]?

    package init(limit: Int, ask: @escaping @Sendable (LogVerifyRequest) async throws -> [UInt8]?) {
        self.limit = limit
        asking = ask
    }

    /// The log's answer to `question` (uncached); `503` when none came in time or it cannot
    /// be read.
    func result(of question: LogVerifyRequest) async throws -> LogVerifyResult {
        guard let bytes = try await asking(question) else {
            throw EdgeError(.unavailable, "the log did not answer in time")
        }
        guard let result = try? JSONCoding.decode(Message<LogVerifyResult>.self, from: bytes).body else {
            throw EdgeError(.unavailable, "the log's answer cannot be read")
        }
        return result
    }

    /// A checkpoint was published (or came in an answer): answers against smaller trees are
    /// stale from now on.
    package func checkpoint(_ checkpoint: SignedCheckpoint) {
        state.withLock { s in
            if checkpoint.treeSize > s.latest { s.latest = checkpoint.treeSize }
            if checkpoint.treeSize >= s.head?.treeSize ?? 0 { s.head = checkpoint }
        }
    }

    /// The latest signed checkpoint: the last one heard of, else the log's own, asked (nil for
    /// a log with none yet).
    package func head() async throws -> SignedCheckpoint? {
        if let head = state.withLock({ $0.head }) { return head }
        let result = try await result(of: LogVerifyRequest(oldTreeSize: 0))
        // A log with no checkpoint knows no size: it has none to give.
        guard result.status == .consistent, let checkpoint = result.checkpoint else { return nil }
        self.checkpoint(checkpoint)
        return checkpoint
    }

    /// The answer about `hash` (64 lower-case hex digits) when it is cached and current.
    func cached(_ hash: String) -> Answer? {
        state.withLock { $0.current(hash) }
    }

    /// The answer about `hash` (64 lower-case hex digits).
    package func answer(for hash: String) async throws -> Answer {
        enum Found {
            case cached(Answer)
            case fetching(Task<Answer, any Error>)
        }
        let found = state.withLock { s -> Found in
            if let cached = s.current(hash) { return .cached(cached) }
            if let running = s.inFlight[hash] { return .fetching(running) }
            let task = Task { try await self.fetch(hash) }
            s.inFlight[hash] = task
            return .fetching(task)
        }
        switch found {
        case .cached(let answer): return answer
        case .fetching(let task): return try await task.value
        }
    }

    private func fetch(_ hash: String) async throws -> Answer {
        defer { _ = state.withLock { $0.inFlight.removeValue(forKey: hash) } }
        let result = try await result(of: LogVerifyRequest(imageHash: hash))
        guard result.status != .rejected, let treeSize = result.checkpoint?.treeSize else {
            throw EdgeError(.invalidField, "the log refused the question", field: "image_hash")
        }
        let answer = Answer(
            treeSize: treeSize, json: ByteBuffer(bytes: Self.render(result, hash: hash)),
            proof: (try? result.tlogProof())?.map { ByteBuffer(string: $0.formatted) },
            node: ByteBuffer(bytes: Self.node(result, hash: hash)))
        if let checkpoint = result.checkpoint { self.checkpoint(checkpoint) }
        // Not yet witnessed: the cosignatures are on their way, and the answer would keep saying
        // otherwise until the next checkpoint.
        let settled = result.witnessed != false
        state.withLock { s in
            guard limit > 0, settled else { return }
            if s.cache.count >= limit {
                s.cache = s.cache.filter { $0.value.treeSize >= s.latest }
                if s.cache.count >= limit { s.cache = [:] }
            }
            s.cache[hash] = answer
        }
        return answer
    }
}
