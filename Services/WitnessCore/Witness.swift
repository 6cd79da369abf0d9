import Dispatch
import Foundation
import HallmarkCore
import HallmarkCrypto
import Logging
import Metrics

/// A C2SP tlog-witness: cosigns a log's checkpoint only when it is consistent with the last one
/// it cosigned for that log, and remembers it (``WitnessState``) before answering. Requests
/// are checked one at a time, in this process on a serial queue and across processes under the
/// state file's lock, so a smaller checkpoint can never overwrite a larger one.
///
/// Shown a checkpoint of the size it cosigned with another root (a split view), it refuses
/// (422), keeps the note as evidence, logs a critical `split view` line and counts
/// `hallmark_witness_split_views_total`. A larger checkpoint whose proof from the cosigned size
/// does not verify (another history, or a broken proof: the witness cannot tell) is refused and
/// kept as evidence too, logged as an error and counted in
/// `hallmark_witness_unproven_checkpoints_total`.
package final class Witness: Sendable {
    /// What verifies this witness's cosignatures (type 0x04).
    package var verifierKey: NoteVerifierKey { signer.verifierKey }

    let signer: NoteSigner
    /// The logs followed: origin → the keys trusted for it.
    let logs: [String: [NoteVerifierKey]]
    let state: WitnessStateFile
    let clock: @Sendable () -> UInt64
    let logger: Logger
    private let queue = DispatchQueue(label: "hallmark.witness")
    private let splitViews = Counter(label: "hallmark_witness_split_views_total")
    private let unproven = Counter(label: "hallmark_witness_unproven_checkpoints_total")

    /// A witness named `name` with the Ed25519 key of `seed`, following the logs whose vkeys
    /// are `logs`, keeping its state in `statePath`.
    package init(
        name: String, seed: some DataProtocol, logs: [NoteVerifierKey], statePath: String, logger: Logger,
        clock: @escaping @Sendable () -> UInt64 = { UInt64(Date().timeIntervalSince1970) }
    ) throws {
        signer = try NoteSigner(name: name, seed: seed, algorithm: .cosignatureV1)
        self.logs = Dictionary(grouping: logs, by: \.name)
        state = try WitnessStateFile(path: statePath)
        self.clock = clock
        self.logger = logger
        _ = try state.load()  // a state file that cannot be read stops the witness at start
    }

    /// Answers an `add-checkpoint` request body.
    package func add(_ body: [UInt8]) async -> WitnessAnswer {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: self.addNow(body)) }
        }
    }

    /// The latest checkpoint cosigned for the log whose origin hashes (SHA-256, lower-case hex)
    /// to `originHash`, with the log's and this witness's signatures; nil when there is none.
    package func checkpoint(originHash: String) async -> String? {
        await withCheckedContinuation { continuation in
            queue.async {
                let stored = try? self.state.load()
                let log = stored?.logs.first { Hex.encode(SHA256Hash.digest(Data($0.key.utf8))) == originHash }
                continuation.resume(returning: log?.value.checkpoint)
            }
        }
    }

    private func addNow(_ body: [UInt8]) -> WitnessAnswer {
        let request: AddCheckpointRequest
        let text: CheckpointText
        do {
            request = try AddCheckpointRequest.parse(body)
            text = try CheckpointText(parsing: request.checkpoint.text)
        } catch {
            return .refused(.badRequest, "\(error)")
        }
        guard let keys = logs[text.origin] else { return .refused(.unknownLog, "this witness does not follow that log") }
        let verified: [NoteVerifierKey]
        do {
            verified = try request.checkpoint.verified(by: keys).map(\.key)
        } catch {
            return .refused(.forbidden, "the log's signature is missing or does not verify")
        }
        guard request.oldSize <= text.treeSize else { return .refused(.badRequest, "the old size is above the checkpoint's") }
        do {
            return try state.update { state in
                let answer = check(request, text, against: state.logs[text.origin])
                if let refusal = answer?.refusal, refusal == .splitView || refusal == .inconsistent,
                    let last = state.logs[text.origin], request.oldSize == last.size
                {
                    record(request, text, contradicting: last, splitView: refusal == .splitView, in: &state)
                    return (answer!, save: true)
                }
                if let answer { return (answer, save: false) }
                let cosignature = try signer.sign(text.text, time: clock())
                let kept = request.checkpoint.signatures.filter { line in
                    verified.contains { $0.name == line.name && $0.keyID == line.keyID }
                }
                state.logs[text.origin] = WitnessState.Log(
                    size: text.treeSize, root: Base64.encode(text.rootHash),
                    checkpoint: SignedNote(text: text.text, signatures: kept + [cosignature]).formatted)
                return (.cosigned(cosignature.line), save: true)
            }
        } catch {
            logger.error("witness state not updated", metadata: ["error": "\(error)"])
            return WitnessAnswer(
                status: 500, body: "the witness cannot keep its state\n", contentType: "text/plain; charset=utf-8",
                refusal: nil)
        }
    }

    /// The refusal a request earns against the log's last cosigned checkpoint, or nil.
    private func check(
        _ request: AddCheckpointRequest, _ text: CheckpointText, against last: WitnessState.Log?
    )
        -> WitnessAnswer?
    {
        let lastSize = last?.size ?? 0
        guard request.oldSize == lastSize else {
            return .refused(.conflict, "the old size is not the size last cosigned", size: lastSize)
        }
        guard text.treeSize > 0 else { return .refused(.inconsistent, "a checkpoint of size 0 is not cosigned") }
        guard request.oldSize > 0, let last, let lastRoot = try? Base64.decode(last.root, length: 32) else {
            return request.proof.isEmpty ? nil : .refused(.inconsistent, "old size 0 takes no proof")
        }
        if text.treeSize == last.size {
            return text.rootHash == lastRoot
                ? nil : .refused(.splitView, "another root for the size last cosigned")
        }
        guard let old = Int(exactly: last.size), let new = Int(exactly: text.treeSize),
            MerkleTree.verifyConsistency(
                oldSize: old, newSize: new, oldRoot: lastRoot, newRoot: text.rootHash, proof: request.proof)
        else {
            return .refused(.inconsistent, "the consistency proof does not verify")
        }
        return nil
    }

    private func record(
        _ request: AddCheckpointRequest, _ text: CheckpointText, contradicting last: WitnessState.Log,
        splitView: Bool, in state: inout WitnessState
    ) {
        let metadata: Logger.Metadata = [
            "origin": "\(text.origin)", "cosigned_size": "\(last.size)", "cosigned_root": "\(last.root)",
            "shown_size": "\(text.treeSize)", "shown_root": "\(Base64.encode(text.rootHash))",
        ]
        if splitView {
            splitViews.increment()
            logger.critical("split view: the log signed another root for the size this witness cosigned", metadata: metadata)
        } else {
            unproven.increment()
            logger.error(
                "the log's checkpoint is not proven consistent with the one this witness cosigned", metadata: metadata)
        }
        state.evidence.append(
            WitnessState.Evidence(
                origin: text.origin, cosignedSize: last.size, cosignedRoot: last.root,
                shown: request.checkpoint.formatted, at: clock()))
        state.evidence = Array(state.evidence.suffix(WitnessState.maxEvidence))
    }
}
