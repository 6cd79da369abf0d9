import Foundation
import HallmarkCrypto
import HallmarkMessages

extension CheckpointSigningKey {
    /// The key's signers for one log, made once for its origin: every checkpoint gets the
    /// 71-byte signature and a C2SP signed note with the log's Ed25519 note signature (type
    /// 0x01) and its time as a tlog-cosignature (type 0x04), both under the origin, so the one
    /// vkey (``CheckpointSigningKey/verifierKey(origin:)``) checks both.
    package struct LogSigner: Sendable {
        /// The key.
        package let key: CheckpointSigningKey
        /// The note's Ed25519 signer.
        let signature: NoteSigner
        /// The signer of the note's time.
        let clock: NoteSigner

        /// The log's C2SP origin.
        package var origin: String { signature.verifierKey.name }

        init(key: CheckpointSigningKey, origin: String) throws {
            self.key = key
            signature = try NoteSigner(name: origin, key: key.signingKey, algorithm: .ed25519)
            clock = try NoteSigner(name: origin, key: key.signingKey, algorithm: .cosignatureV1)
        }

        /// Signs a checkpoint and its note.
        package func sign(_ checkpoint: LogCheckpoint) throws -> SignedCheckpoint {
            let text = try CheckpointText(origin: origin, treeSize: checkpoint.treeSize, rootHash: checkpoint.rootHash)
            return try SignedCheckpoint(checkpoint, key: key.signingKey, note: note(text, time: checkpoint.timestamp))
        }

        /// The signed note of `checkpoint` at `time` (Unix seconds).
        package func note(_ checkpoint: CheckpointText, time: UInt64) throws -> SignedNote {
            let text = checkpoint.text
            return SignedNote(text: text, signatures: [try signature.sign(text), try clock.sign(text, time: time)])
        }
    }

    /// The signers for the log named `origin`; `invalid_argument` for an origin a vkey cannot name.
    package func signer(origin: String) throws -> LogSigner {
        try LogSigner(key: self, origin: origin)
    }
}
