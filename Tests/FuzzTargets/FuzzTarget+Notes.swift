import Foundation
import HallmarkCrypto

extension FuzzTarget {
    /// The C2SP text formats a witness or a verifier reads from strangers: signed notes, vkeys,
    /// checkpoints, tlog-proof files, add-checkpoint requests and tlog-policy files. Each input
    /// goes to every parser; whatever parses writes back to text that parses to the same value,
    /// and checking a parsed note or proof against a fixed key never traps or verifies a forgery.
    static let notes = FuzzTarget(
        name: "notes",
        summary: "C2SP signed notes, vkeys, checkpoints, tlog-proof, add-checkpoint and tlog-policy: parse, write back, verify",
        run: NoteFormats.run, seeds: NoteFormats.seeds,
        dictionary: [
            "\n\n", "\u{2014} ", "+", "c2sp.org/tlog-proof@v1\n", "extra ", "index ", "old ", "log ", "witness ", "group ",
            "quorum ", "none", "http://", "example.com/log\n", "cosignature/v1\n", "time ",
        ])
}

enum NoteFormats {
    /// The fixed key every parsed note and proof is checked against (never the input's).
    static let signer = try! NoteSigner(name: "example.com/log", seed: Data(repeating: 7, count: 32), algorithm: .ed25519)
    static let clock = try! NoteSigner(name: "example.com/log", seed: Data(repeating: 7, count: 32), algorithm: .cosignatureV1)

    static func run(_ bytes: [UInt8]) throws(FuzzFinding) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let note = try? SignedNote.parse(bytes) {
            try require((try? SignedNote.parse(Array(note.formatted.utf8))) == note, "a signed note does not round-trip")
            if let verified = try? note.verified(by: [signer.verifierKey, clock.verifierKey]) {
                // Only a signature the key made verifies: the input cannot hold one unless it
                // was made over this very text by the seed above.
                try require(
                    verified.allSatisfy { found in note.signatures.contains { $0.keyID == found.key.keyID } },
                    "a note verified by a key none of its lines names")
            }
            _ = try? CheckpointText.open(note, vkey: signer.verifierKey)
        }
        if let key = try? NoteVerifierKey(parsing: text) {
            try require((try? NoteVerifierKey(parsing: key.description)) == key, "a vkey does not round-trip")
        }
        if let checkpoint = try? CheckpointText(parsing: text) {
            try require(checkpoint.text == text, "a checkpoint is not its own text")
        }
        if let proof = try? TransparencyProof.parse(bytes) {
            try require((try? TransparencyProof.parse(Array(proof.formatted.utf8))) == proof, "a proof file does not round-trip")
            _ = try? proof.verify(leafHash: Data(repeating: 1, count: 32), vkey: signer.verifierKey)
        }
        if let request = try? AddCheckpointRequest.parse(bytes) {
            try require(
                (try? AddCheckpointRequest.parse(Array(request.formatted.utf8))) == request,
                "an add-checkpoint request does not round-trip")
        }
        if let policy = try? TransparencyPolicy.parse(text) {
            _ = policy.isSatisfied(by: Set(policy.witnesses.map(\.name).prefix(1)))
        }
    }

    static func seeds() throws -> [[UInt8]] {
        let checkpoint = try CheckpointText(origin: "example.com/log", treeSize: 5, rootHash: Data(repeating: 3, count: 32))
        let note = SignedNote(
            text: checkpoint.text, signatures: [try signer.sign(checkpoint.text), try clock.sign(checkpoint.text, time: 9)])
        let proof = TransparencyProof(
            extra: Data("x".utf8), index: 2, inclusionProof: [Data(repeating: 4, count: 32)], checkpoint: note)
        let request = AddCheckpointRequest(oldSize: 3, proof: [Data(repeating: 5, count: 32)], checkpoint: note)
        let policy = """
            log \(signer.verifierKey)
            witness w1 \(clock.verifierKey) http://127.0.0.1:1
            group all 1 w1
            quorum all

            """
        return [note.formatted, signer.verifierKey.description, checkpoint.text, proof.formatted, request.formatted, policy]
            .map { Array($0.utf8) }
    }
}
