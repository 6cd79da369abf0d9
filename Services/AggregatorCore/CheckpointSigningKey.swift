import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages

/// The aggregator's Ed25519 checkpoint key, loaded from a file only the aggregator reads
/// (never from the database):
///
/// ```
/// # Hallmark aggregator checkpoint key (private): signs the transparency log's checkpoints.
/// seed=<b64 of the 32-byte Ed25519 seed>
/// ```
///
/// Anyone verifies checkpoints with the public half (`hallmark aggregator public-key`).
package struct CheckpointSigningKey: Sendable {
    /// The seed; never printed.
    let seed: Data
    /// The raw 32-byte public key.
    package let publicKey: Data
    /// Hex SHA-256 of the public key, as checkpoints name it.
    package var keyID: String { SignedCheckpoint.keyID(publicKey: publicKey) }

    init(seed: Data) throws {
        self.seed = seed
        publicKey = try Ed25519.keyPair(seed: seed).publicKey
    }

    /// A fresh key.
    package static func generate() throws -> CheckpointSigningKey {
        try CheckpointSigningKey(seed: Ed25519.generate().seed)
    }

    /// Signs a checkpoint, and, for a log with an `origin`, its C2SP signed note.
    package func sign(_ checkpoint: LogCheckpoint, origin: String? = nil) throws -> SignedCheckpoint {
        let note = try origin.map {
            try self.note(
                CheckpointText(origin: $0, treeSize: checkpoint.treeSize, rootHash: checkpoint.rootHash),
                time: checkpoint.timestamp)
        }
        return try SignedCheckpoint(checkpoint, seed: seed, note: note)
    }

    /// The C2SP signed note of `checkpoint`: the log's Ed25519 note signature (type 0x01) and
    /// its time as a tlog-cosignature (type 0x04), both under the origin, so the one vkey
    /// (``verifierKey(origin:)``) checks both.
    package func note(_ checkpoint: CheckpointText, time: UInt64) throws -> SignedNote {
        let text = checkpoint.text
        let signer = try NoteSigner(name: checkpoint.origin, seed: seed, algorithm: .ed25519)
        let clock = try NoteSigner(name: checkpoint.origin, seed: seed, algorithm: .cosignatureV1)
        return SignedNote(text: text, signatures: [try signer.sign(text), try clock.sign(text, time: time)])
    }

    /// The log's verifier key: `<origin>+<key ID>+<b64(0x01 ‖ public key)>`.
    package func verifierKey(origin: String) throws -> NoteVerifierKey {
        try NoteVerifierKey(name: origin, algorithm: .ed25519, publicKey: publicKey)
    }

    /// Reads the key file; errors never include its contents.
    package static func load(_ path: String) throws(ConfigurationError) -> CheckpointSigningKey {
        let variable = "HALLMARK_AGGREGATOR_SIGNING_KEY_FILE"
        let seed = try Ed25519SeedFile.read(path, variable: variable)
        guard let key = try? CheckpointSigningKey(seed: seed) else {
            throw ConfigurationError(variable: variable, reason: "needs exactly one line seed=<b64 of 32 bytes>")
        }
        return key
    }

    /// Writes the key to a new file (mode 0600); an existing file is never overwritten.
    package func write(to path: String) throws(ConfigurationError) {
        try Ed25519SeedFile.write(
            seed, to: path, comment: "Hallmark aggregator checkpoint key (private): signs the transparency log's checkpoints.")
    }
}
