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
    /// The key derived from the seed, once.
    let signingKey: Ed25519.SigningKey
    /// The raw 32-byte public key.
    package var publicKey: Data { signingKey.publicKey }
    /// Hex SHA-256 of the public key, as checkpoints name it.
    package let keyID: String

    init(seed: Data) throws {
        self.seed = seed
        signingKey = try Ed25519.SigningKey(seed: seed)
        keyID = SignedCheckpoint.keyID(publicKey: signingKey.publicKey)
    }

    /// A fresh key.
    package static func generate() throws -> CheckpointSigningKey {
        try CheckpointSigningKey(seed: Ed25519.generate().seed)
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
