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

    /// Signs a checkpoint.
    package func sign(_ checkpoint: LogCheckpoint) throws -> SignedCheckpoint {
        try SignedCheckpoint(checkpoint, seed: seed)
    }

    /// Reads the key file; errors never include its contents.
    package static func load(_ path: String) throws(ConfigurationError) -> CheckpointSigningKey {
        let variable = "HALLMARK_AGGREGATOR_SIGNING_KEY_FILE"
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(variable: variable, reason: "cannot be read")
        }
        var seed: Data?
        for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty || text.hasPrefix("#") { continue }
            guard text.hasPrefix("seed="), seed == nil, let bytes = try? Base64.decode(String(text.dropFirst(5)), length: 32)
            else {
                throw ConfigurationError(variable: variable, reason: "needs exactly one line seed=<b64 of 32 bytes>")
            }
            seed = bytes
        }
        guard let seed, let key = try? CheckpointSigningKey(seed: seed) else {
            throw ConfigurationError(variable: variable, reason: "needs exactly one line seed=<b64 of 32 bytes>")
        }
        return key
    }

    /// Writes the key to a new file (mode 0600); an existing file is never overwritten.
    package func write(to path: String) throws(ConfigurationError) {
        let variable = "--out"
        guard !FileManager.default.fileExists(atPath: path) else {
            throw ConfigurationError(variable: variable, reason: "the key file already exists; choose another path")
        }
        let url = URL(fileURLWithPath: path)
        try? FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let text =
            "# Hallmark aggregator checkpoint key (private): signs the transparency log's checkpoints.\n"
            + "seed=\(Base64.encode(seed))\n"
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        else {
            throw ConfigurationError(variable: variable, reason: "cannot write the key file")
        }
    }
}
