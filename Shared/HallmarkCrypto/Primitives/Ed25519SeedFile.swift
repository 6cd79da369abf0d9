import Foundation
import HallmarkCore

/// A private Ed25519 key in a file of its own, never in a database:
///
/// ```
/// # <what the key is for>
/// seed=<b64 of the 32-byte Ed25519 seed>
/// ```
///
/// Written once with mode 0600 and never overwritten; errors name the variable that pointed at
/// the file, never its contents.
public enum Ed25519SeedFile {
    /// The seed in the file at `path`, which `variable` named.
    public static func read(_ path: String, variable: String) throws(ConfigurationError) -> Data {
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
        guard let seed, (try? Ed25519.keyPair(seed: seed)) != nil else {
            throw ConfigurationError(variable: variable, reason: "needs exactly one line seed=<b64 of 32 bytes>")
        }
        return seed
    }

    /// Writes `seed` to a new file at `path` (mode 0600, its folder 0700 when made), with a
    /// `# comment` line; an existing file is never overwritten.
    public static func write(_ seed: Data, to path: String, comment: String) throws(ConfigurationError) {
        let variable = "--out"
        guard !FileManager.default.fileExists(atPath: path) else {
            throw ConfigurationError(variable: variable, reason: "the key file already exists; choose another path")
        }
        let url = URL(fileURLWithPath: path)
        try? FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let text = "# \(comment)\nseed=\(Base64.encode(seed))\n"
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        else {
            throw ConfigurationError(variable: variable, reason: "cannot write the key file")
        }
    }
}
