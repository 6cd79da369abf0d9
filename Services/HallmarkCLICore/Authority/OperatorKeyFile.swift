import AuthorityCore
import Foundation
import HallmarkClient
import HallmarkCrypto
import HallmarkMessages
import HallmarkRuntime

/// An operator's private signing key for admin commands, as a file only the operator reads:
///
/// ```
/// # Hallmark operator key (private): signs admin commands. Never share or commit it.
/// key_id=<id>
/// seed=<b64 of the 32-byte Ed25519 seed>
/// ```
///
/// The authority holds only the public key (``OperatorKeys``).
package struct OperatorKeyFile: Sendable {
    /// The key id the authority knows the public key by.
    package let keyID: String
    /// The Ed25519 seed (never print it).
    let seed: Data

    /// The key's public half.
    package var publicKey: Data {
        get throws { try Ed25519.keyPair(seed: seed).publicKey }
    }

    /// The line for the authority's operator keys file (`<key id>=<b64 public key>`).
    package var publicEntry: String {
        get throws { OperatorKeys.entry(keyID: keyID, publicKey: try publicKey) }
    }

    /// A fresh key under `keyID`.
    package static func generate(keyID: String) throws -> OperatorKeyFile {
        guard OperatorKeys.isValidKeyID(keyID) else {
            throw AuthorityClientError(.failed, "a key id is 1-64 of A-Z a-z 0-9 . _ -, starting with a letter or digit")
        }
        return OperatorKeyFile(keyID: keyID, seed: try Ed25519.generate().seed)
    }

    /// Writes the key to a new file (mode 0600); an existing file is never overwritten.
    package func write(to path: String) throws {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw AuthorityClientError(.io, "the operator key file already exists; choose another path")
        }
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let text =
            "# Hallmark operator key (private): signs admin commands. Never share or commit it.\n"
            + "key_id=\(keyID)\nseed=\(Base64.encode(seed))\n"
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data(text.utf8),
                attributes: [.posixPermissions: 0o600])
        else {
            throw AuthorityClientError(.io, "cannot write the operator key file")
        }
    }

    /// Reads a key file; errors never include its contents.
    package static func load(_ path: String) throws -> OperatorKeyFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AuthorityClientError(.io, "the operator key file cannot be read")
        }
        var keyID: String?
        var seed: Data?
        for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty || text.hasPrefix("#") { continue }
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            switch parts.first {
            case "key_id" where parts.count == 2 && OperatorKeys.isValidKeyID(parts[1]): keyID = parts[1]
            case "seed" where parts.count == 2: seed = try? Base64.decode(parts[1], length: 32)
            default: throw AuthorityClientError(.failed, "the operator key file has an unknown or malformed line")
            }
        }
        guard let keyID, let seed else {
            throw AuthorityClientError(.failed, "the operator key file needs key_id= and a 32-byte b64 seed=")
        }
        return OperatorKeyFile(keyID: keyID, seed: seed)
    }

    /// `command` with this key's id and signature.
    package func sign(_ command: Message<AdminCommand>) throws -> Message<AdminCommand> {
        try command.signed(keyID: keyID, seed: seed)
    }

    /// `request` with this key's id and signature.
    package func sign(_ request: Message<PrivacyRequest>) throws -> Message<PrivacyRequest> {
        try request.signed(keyID: keyID, seed: seed)
    }
}
