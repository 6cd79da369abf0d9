import Foundation
import HallmarkCrypto

/// The active secret versions and which one signs.
///
/// Folder layout (the signer's `HALLMARK_SIGNER_SECRETS_DIR`): one file per version, named after it
/// (`[A-Za-z0-9._-]+`, not starting with a dot), holding the secret (a trailing newline is
/// ignored); a file `signing-version` holds the signing version's name. Removing a version's
/// file retires it. Without a folder, `<prefix>SECRET_<VERSION>` variables give the versions
/// (name lowercased) and `<prefix>SIGNING_VERSION` the signing one, where the prefix is the
/// service's (`HALLMARK_SIGNER_` for the signer).
public struct SecretSet: Sendable, CustomStringConvertible {
    /// Every active version, sorted by name; verification tries them all.
    public let versions: [SecretVersion]
    /// The version new signatures use.
    public let signing: SecretVersion

    /// The marker file's name inside the folder.
    public static let markerFile = "signing-version"

    public init(versions: [SecretVersion], signingVersion: String) throws {
        guard !versions.isEmpty else { throw SmileIDError(.secrets, "no secret versions") }
        guard let signing = versions.first(where: { $0.version == signingVersion }) else {
            throw SmileIDError(.secrets, "signing version \(signingVersion.prefix(64)) is not among the versions")
        }
        guard versions.allSatisfy({ !$0.secret.isEmpty }) else {
            throw SmileIDError(.secrets, "a secret version is empty")
        }
        self.versions = versions.sorted { $0.version < $1.version }
        self.signing = signing
    }

    /// Each version's name with SHA-256 of its secret: enough to tell a version whose secret
    /// changed (an audit trail's check values), never the secret itself.
    public var versionDigests: [(id: String, material: Data)] {
        versions.map { ($0.version, SHA256Hash.digest(Array($0.secret.utf8))) }
    }

    public var description: String {
        "SecretSet(versions: \(versions.map(\.version)), signing: \(signing.version))"
    }

    /// Loads from the configured folder, or from the environment when none is configured.
    public static func load(directory: String?, environment: [String: String], variablePrefix: String) throws -> SecretSet {
        if let directory { return try load(directory: directory) }
        var versions: [SecretVersion] = []
        let variables = SmileIDKeySettings.Variables(prefix: variablePrefix)
        let secretPrefix = String(variables.secretFamily.name.dropLast("<VERSION>".count))
        for (name, value) in environment where name.hasPrefix(secretPrefix) && !value.isEmpty {
            versions.append(
                SecretVersion(
                    version: String(name.dropFirst(secretPrefix.count)).lowercased(),
                    secret: value))
        }
        guard let signing = environment[variables.signingVersion.name], !signing.isEmpty else {
            throw SmileIDError(.secrets, "\(variables.signingVersion.name) is not set")
        }
        return try SecretSet(versions: versions, signingVersion: signing.lowercased())
    }

    /// Loads a secret folder (layout above).
    public static func load(directory: String) throws -> SecretSet {
        let fm = FileManager.default
        let names: [String]
        do {
            names = try fm.contentsOfDirectory(atPath: directory)
        } catch {
            throw SmileIDError(.secrets, "the secrets folder cannot be listed")
        }
        var versions: [SecretVersion] = []
        var signing: String?
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = (directory as NSString).appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            guard let data = fm.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
                throw SmileIDError(.secrets, "secret file \(name.prefix(64)) is unreadable or not UTF-8")
            }
            let value = text.trimmingCharacters(in: .newlines)
            if name == markerFile {
                signing = value.trimmingCharacters(in: .whitespaces)
            } else if name.range(of: "^[A-Za-z0-9._-]+$", options: .regularExpression) != nil {
                versions.append(SecretVersion(version: name, secret: value))
            }
        }
        guard let signing, !signing.isEmpty else {
            throw SmileIDError(.secrets, "the secrets folder has no \(markerFile) file")
        }
        return try SecretSet(versions: versions, signingVersion: signing)
    }
}
