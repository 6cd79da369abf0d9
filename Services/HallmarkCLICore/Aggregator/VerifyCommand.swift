import AggregatorCore
import ArgumentParser
import Foundation
import HallmarkClient
import HallmarkCore
import HallmarkCrypto
import HallmarkKafka
import HallmarkMessages
import Logging

/// `hallmark verify --image-hash H | --file photo.jpg`: asks the transparency log whether an
/// image was authenticated and checks the answer offline, trusting only the aggregator's
/// public key: the checkpoint's signature, the inclusion proof to its root, and that the log
/// is an extension of the last checkpoint this command saw (a consistency proof), which it
/// then remembers. With the log's vkey it also opens the checkpoint's C2SP signed note, and
/// `--proof-out` keeps a C2SP tlog-proof file beside the photo; `--proof` checks such a file
/// offline, with no network. Exit status 0 when authenticated, 1 when not found, 2 when an
/// answer fails a check.
package struct VerifyCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "verify", abstract: "Was this image authenticated, and when? Asks the log and checks its proofs offline.")

    @Option(help: "The image's SHA-256, 64 lowercase hex digits.") var imageHash: String?
    @Option(help: "An image file, hashed with SHA-256.") var file: String?
    @Option(
        help:
            "The aggregator's public key, b64, the only key trusted (default: HALLMARK_AGGREGATOR_PUBLIC_KEY)."
    )
    var publicKey: String?
    @Option(help: "Where the last checkpoint seen is kept (default ~/.hallmark/last-checkpoint.json).") var checkpointFile:
        String?
    @Option(help: "Seconds to wait for each answer.") var timeout = 30
    @Option(
        help:
            "The log's verifier key, C2SP vkey; with --public-key it must name the same key (default: HALLMARK_AGGREGATOR_VKEY)."
    )
    var vkey: String?
    @Option(help: "Write the C2SP tlog-proof of an authenticated image to this file (keep it beside the photo).")
    var proofOut: String?
    @Option(help: "Check this C2SP tlog-proof file offline instead of asking the log (needs the vkey).") var proof: String?

    package init() {}

    package func validate() throws {
        if proof != nil {
            guard imageHash == nil || file == nil else { throw ValidationError("give at most one of --image-hash and --file") }
            guard proofOut == nil else { throw ValidationError("--proof checks a file; --proof-out writes one") }
        } else {
            guard (imageHash == nil) != (file == nil) else {
                throw ValidationError("give exactly one of --image-hash and --file")
            }
        }
    }

    package func run() async throws {
        var logger = Logger(label: "hallmark.verify")
        logger.logLevel = .warning
        let env = ProcessInfo.processInfo.environment
        // The key named on the command line or configured for verifiers, never a signing key.
        let trust = try VerifierTrust.resolve(publicKey: publicKey, vkey: vkey, env: env)
        let verifierKey = trust.vkey
        let hash = try imageHash ?? file.map(Self.hashFile)
        guard hash.map({ (try? Hex.decode($0, length: 32)) != nil && $0 == $0.lowercased() }) ?? true else {
            throw ValidationError("an image hash is 64 lowercase hex digits")
        }
        if let proof {
            guard let verifierKey else { throw ValidationError("--proof needs the log's vkey (--vkey)") }
            let verdict = Self.check(proofFile: proof, vkey: verifierKey, imageHash: hash)
            print(verdict.text)
            if verdict.code != 0 { throw ExitCode(verdict.code) }
            return
        }
        guard let hash else { throw ValidationError("give --image-hash or --file") }
        let key = trust.publicKey
        let config = try AggregatorConfiguration.fromEnvironment(env)
        let kafka = try KafkaConfiguration.fromEnvironment(env)
        let producer = try KafkaProducer.cli(kafka, logger: logger)
        let watcher = try AnswerWatcher(kafka: kafka, topics: [config.verifyOutput], fromStart: false, logger: logger)
        let reader = Task { await watcher.run() }
        defer { reader.cancel() }
        try await watcher.waitUntilAssigned()
        let log = LogQuestion(
            producer: producer, watcher: watcher, requests: config.verifyInput, results: config.verifyOutput,
            timeout: .seconds(timeout))
        let statePath = checkpointFile ?? (NSHomeDirectory() + "/.hallmark/last-checkpoint.json")
        let verdict = try await Self.verify(hash, log: log, publicKey: key, vkey: verifierKey, statePath: statePath)
        await watcher.close()
        _ = await producer.close()
        print(verdict.text)
        if let proofOut, let proof = verdict.proof {
            try Data(proof.formatted.utf8).write(to: URL(fileURLWithPath: proofOut), options: .atomic)
            print("  proof written to \(proofOut) (check it offline: hallmark verify --proof \(proofOut) --vkey <vkey>)")
        } else if proofOut != nil, verdict.code == 0 {
            print("  no proof file: the log's checkpoint has no signed note")
            throw ExitCode(2)
        }
        if verdict.code != 0 { throw ExitCode(verdict.code) }
    }

    /// What the command concluded: the text to print and the exit status.
    struct Verdict {
        let text: String
        let code: Int32
        /// For an authenticated image whose checkpoint has a signed note: its tlog-proof.
        var proof: TransparencyProof? = nil
    }

    /// Asks, checks, and remembers the newest checkpoint that checked out.
    static func verify(
        _ hash: String, log: LogQuestion, publicKey: Data, vkey: NoteVerifierKey? = nil, statePath: String
    ) async throws -> Verdict {
        guard let answer = try await log.inclusion(hash) else { return Verdict(text: "NO ANSWER from the log", code: 2) }
        if answer.status == .rejected {
            return Verdict(text: "REJECTED by the log: \(answer.reason?.rawValue ?? "?")", code: 2)
        }
        if case .failure(let failure) = answer.check(publicKey: publicKey, imageHash: hash) {
            return Verdict(text: "INVALID ANSWER: \(failure) — do not trust it", code: 2)
        }
        let head = answer.checkpoint!
        // With the vkey, the C2SP note must be there, verify and say the same tree.
        if let vkey {
            do {
                guard try head.openNote(vkey: vkey) != nil else {
                    return Verdict(text: "INVALID ANSWER: the checkpoint has no signed note — do not trust it", code: 2)
                }
            } catch {
                return Verdict(text: "INVALID ANSWER: the checkpoint's note: \(error) — do not trust it", code: 2)
            }
        }
        var consistency = "first checkpoint seen; remembered for next time"
        // Only a checkpoint this key signed counts (the file is not trusted on its own).
        let remembered = LastCheckpoint.load(statePath).flatMap { $0.verify(publicKey: publicKey) ? $0 : nil }
        if let earlier = remembered {
            let (old, new) = earlier.treeSize <= head.treeSize ? (earlier, head) : (head, earlier)
            if old.treeSize == new.treeSize {
                guard old.rootHash == new.rootHash else {
                    return Verdict(text: "INCONSISTENT LOG: two signed roots for size \(old.treeSize)", code: 2)
                }
                consistency = "same checkpoint as last time (size \(old.treeSize))"
            } else {
                guard let proof = try await log.consistency(old: old.treeSize, new: new.treeSize),
                    case .success = proof.check(publicKey: publicKey, earlier: old),
                    proof.checkpoint?.rootHash == new.rootHash
                else {
                    return Verdict(text: "INCONSISTENT LOG: size \(new.treeSize) does not extend size \(old.treeSize)", code: 2)
                }
                consistency = "consistent with the last checkpoint seen (size \(earlier.treeSize))"
            }
        }
        try? LastCheckpoint.save(remembered.map { $0.treeSize > head.treeSize ? $0 : head } ?? head, to: statePath)
        let signed = "checkpoint of \(head.treeSize) leaves signed \(Self.date(head.timestamp)) by key \(head.keyID.prefix(16))…"
        guard answer.status == .found, let record = answer.record, let index = answer.leafIndex else {
            return Verdict(text: "NOT FOUND: \(hash) is not in the log as of the \(signed); \(consistency)", code: 1)
        }
        let parent = record.parentImageHash.map { ", derived from \($0)" } ?? ""
        let proof = try answer.tlogProof()
        return Verdict(
            text: """
                AUTHENTICATED: \(hash)
                  leaf \(index), captured \(Self.date(record.timestamp)), modification level \(record.modificationLevel)\(parent)
                  inclusion proof (\(answer.inclusionProof?.count ?? 0) hashes) leads to the root of the \(signed)
                  \(consistency)\(Self.witnessing(answer))\(Self.attribution(answer))
                """, code: 0, proof: proof)
    }

    /// What the camera said beside the hash, when it said anything: not covered by the proof.
    static func attribution(_ answer: LogVerifyResult) -> String {
        guard let a = answer.attribution else { return "" }
        let parts = [a.gpsHash.map { "gps_hash \($0)" }, a.ownerHash.map { "owner_hash \($0)" }].compactMap { $0 }
        return "\n  not covered by the proof: " + parts.joined(separator: ", ")
    }

    /// What the log says of its witnesses, when it has any: whether the checkpoint's
    /// cosignatures satisfy its policy, and how many the note carries (beyond the log's two).
    static func witnessing(_ answer: LogVerifyResult) -> String {
        guard let witnessed = answer.witnessed else { return "" }
        let lines = answer.checkpoint?.note.flatMap { try? SignedNote.parse(Array($0.utf8)) }?.signatures.count ?? 0
        let cosignatures = max(0, lines - 2)
        return witnessed
            ? "\n  witnessed: the checkpoint carries \(cosignatures) witness cosignature(s), enough for the log's witness policy"
            : "\n  not witnessed yet: \(cosignatures) witness cosignature(s) so far; ask again shortly"
    }

    static func date(_ seconds: UInt64) -> String { Timestamp.format(Date(timeIntervalSince1970: TimeInterval(seconds))) }

    static func hashFile(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("cannot read \(path)") }
        return Hex.encode(SHA256Hash.digest(data))
    }
}

/// The newest checkpoint `hallmark verify` has checked, kept between runs.
enum LastCheckpoint {
    static func load(_ path: String) -> SignedCheckpoint? {
        FileManager.default.contents(atPath: path).flatMap { try? JSONCoding.decode(SignedCheckpoint.self, from: $0) }
    }

    static func save(_ checkpoint: SignedCheckpoint, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(JSONCoding.encode(checkpoint)).write(to: url, options: .atomic)
    }
}
