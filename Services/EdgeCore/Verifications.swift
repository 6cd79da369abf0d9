import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import NIOCore
import Synchronization

/// Verification over HTTP (`GET /api/v1/verify/{image_hash}`, `GET /api/v1/proof/{image_hash}`):
/// the aggregator's answer (`hallmark.log.verify.result.v1`, asked over Kafka) rendered once as
/// the reference verifier's JSON and as a C2SP tlog-proof, and cached until the next checkpoint,
/// so a photo checked by many costs the aggregator one question per checkpoint. Concurrent
/// questions about one hash share one request.
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

        /// Its ETag: the tree size it was answered against.
        var eTag: String { "\"size-\(treeSize)\"" }
    }

    private struct State {
        var latest: UInt64 = 0
        var cache: [String: Answer] = [:]
        var inFlight: [String: Task<Answer, any Error>] = [:]

        /// The cached answer about `hash` unless a later checkpoint made it stale.
        func current(_ hash: String) -> Answer? { cache[hash].flatMap { $0.treeSize >= latest ? $0 : nil } }
    }

    private let state = Mutex(State())
    private let limit: Int
    /// Asks the aggregator about a hash and waits; nil when no answer came in time.
    private let ask: @Sendable (String) async throws -> [UInt8]?

    package init(limit: Int, ask: @escaping @Sendable (String) async throws -> [UInt8]?) {
        self.limit = limit
        self.ask = ask
    }

    /// A checkpoint was published: answers against smaller trees are stale from now on.
    package func checkpoint(_ treeSize: UInt64) {
        state.withLock { s in
            guard treeSize > s.latest else { return }
            s.latest = treeSize
        }
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
        guard let bytes = try await ask(hash) else {
            throw EdgeError(.unavailable, "the log did not answer in time")
        }
        guard let result = try? JSONCoding.decode(Message<LogVerifyResult>.self, from: bytes).body else {
            throw EdgeError(.unavailable, "the log's answer cannot be read")
        }
        guard result.status != .rejected, let treeSize = result.checkpoint?.treeSize else {
            throw EdgeError(.invalidField, "the log refused the question", field: "image_hash")
        }
        let answer = Answer(
            treeSize: treeSize, json: ByteBuffer(bytes: Self.render(result, hash: hash)),
            proof: (try? result.tlogProof())?.map { ByteBuffer(string: $0.formatted) })
        state.withLock { s in
            s.latest = max(s.latest, treeSize)
            guard limit > 0 else { return }
            if s.cache.count >= limit {
                s.cache = s.cache.filter { $0.value.treeSize >= s.latest }
                if s.cache.count >= limit { s.cache = [:] }
            }
            s.cache[hash] = answer
        }
        return answer
    }

    /// The reference verifier's fields (`verified`, `image_hash`, `timestamp`, `aggregator`,
    /// and its `block_height`, `tx_hash`, `gps_hash`, which a log has none of), then what makes
    /// the answer checkable: `modification_level`, `parent_image_hash`, `leaf_index`,
    /// `tree_size`, `checkpoint` (the C2SP signed note, witness cosignatures included),
    /// `inclusion_proof` (hex, leaf to root) and `witnessed`.
    static func render(_ result: LogVerifyResult, hash: String) -> [UInt8] {
        let note = result.checkpoint?.note
        let origin = note.flatMap { $0.split(separator: "\n", maxSplits: 1).first.map(String.init) }
        var object: [String: JSONValue] = [
            "verified": .bool(result.status == .found), "image_hash": .string(hash),
            "aggregator": origin.map(JSONValue.string) ?? .null, "block_height": .null, "tx_hash": .null, "gps_hash": .null,
            "tree_size": result.checkpoint.map { .number(String($0.treeSize)) } ?? .null,
            "checkpoint": note.map(JSONValue.string) ?? .null,
            "timestamp": .null,
        ]
        if let record = result.record, let index = result.leafIndex {
            object["timestamp"] = .number(String(record.timestamp))
            object["modification_level"] = .number(String(record.modificationLevel))
            object["parent_image_hash"] = record.parentImageHash.map(JSONValue.string) ?? .null
            object["leaf_index"] = .number(String(index))
            object["inclusion_proof"] = .array((result.inclusionProof ?? []).map(JSONValue.string))
        }
        if let witnessed = result.witnessed { object["witnessed"] = .bool(witnessed) }
        return JSONWriter.write(.object(object))
    }
}
