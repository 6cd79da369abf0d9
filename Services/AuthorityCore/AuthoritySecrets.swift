import Foundation
import HallmarkCrypto

/// The authority's secrets: the versioned KEKs (REST) and the blind-index key for NUC
/// hashes. They come from a file (`HALLMARK_AUTHORITY_KEK_FILE`) or a variable
/// (`HALLMARK_AUTHORITY_KEK`), never from the database.
///
/// Format: entries separated by newlines, commas or spaces; `#` starts a comment line.
/// `kek.<version>=<64 hex digits>` (one or more), `index=<64 hex digits>` (exactly one), and
/// optionally `current=<version>` (default: the highest version). To rotate, add a higher
/// `kek.N` and restart; the re-sealer moves rows to it in the background, and the old entry
/// can be removed once `hallmark authority status` shows no row under it.
public struct AuthoritySecrets: Sendable {
    /// The KEKs.
    public let keyring: KeyEncryptionKeyring
    /// HMAC key of the NUC blind index (must never change).
    public let indexKey: Data

    /// Creates secrets from parts.
    public init(keyring: KeyEncryptionKeyring, indexKey: Data) throws(AuthorityError) {
        guard indexKey.count == 32 else { throw AuthorityError(.configuration, "the index key must be 32 bytes") }
        self.keyring = keyring
        self.indexKey = indexKey
    }

    /// Reads `HALLMARK_AUTHORITY_KEK_FILE`, else `HALLMARK_AUTHORITY_KEK`.
    public static func fromEnvironment(_ env: [String: String]) throws(AuthorityError) -> AuthoritySecrets {
        if let path = env["HALLMARK_AUTHORITY_KEK_FILE"], !path.isEmpty {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw AuthorityError(.configuration, "HALLMARK_AUTHORITY_KEK_FILE cannot be read")
            }
            return try parse(String(decoding: data, as: UTF8.self), source: "HALLMARK_AUTHORITY_KEK_FILE")
        }
        if let text = env["HALLMARK_AUTHORITY_KEK"], !text.isEmpty {
            return try parse(text, source: "HALLMARK_AUTHORITY_KEK")
        }
        throw AuthorityError(.configuration, "set HALLMARK_AUTHORITY_KEK_FILE or HALLMARK_AUTHORITY_KEK")
    }

    /// Parses the secrets text; errors name the source and the entry, never a value.
    public static func parse(_ text: String, source: String) throws(AuthorityError) -> AuthoritySecrets {
        var keks: [UInt32: Data] = [:]
        var index: Data?
        var current: UInt32?
        let lines = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }
        let entries = lines.flatMap { $0.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" || $0 == "\r" }) }
        for entry in entries {
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw AuthorityError(.configuration, "\(source): an entry lacks '='") }
            let (name, value) = (parts[0], parts[1])
            if name == "index" {
                guard let key = try? Hex.decode(value, length: 32) else {
                    throw AuthorityError(.configuration, "\(source): index must be 64 hex digits")
                }
                index = key
            } else if name == "current" {
                guard let v = UInt32(value) else { throw AuthorityError(.configuration, "\(source): bad current version") }
                current = v
            } else if name.hasPrefix("kek."), let version = UInt32(name.dropFirst(4)) {
                guard let key = try? Hex.decode(value, length: 32) else {
                    throw AuthorityError(.configuration, "\(source): \(name) must be 64 hex digits")
                }
                keks[version] = key
            } else {
                throw AuthorityError(.configuration, "\(source): unknown entry \(name.prefix(20))")
            }
        }
        guard let index else { throw AuthorityError(.configuration, "\(source): no index= entry") }
        guard let version = current ?? keks.keys.max() else { throw AuthorityError(.configuration, "\(source): no kek.N entry") }
        do {
            return try AuthoritySecrets(keyring: KeyEncryptionKeyring(keys: keks, currentVersion: version), indexKey: index)
        } catch {
            throw AuthorityError(.configuration, "\(source): current=\(version) has no kek.\(version)")
        }
    }

    /// A fresh secrets text with one KEK (version 1) and an index key, for development.
    public static func generateText() throws -> String {
        "# Hallmark authority secrets (development). Keep out of the database and of git.\n"
            + "kek.1=\(Hex.encode(try SecureRandom.bytes(32)))\nindex=\(Hex.encode(try SecureRandom.bytes(32)))\n"
    }

    /// The blind index of a NUC hash.
    public func nucIndex(_ nucHash: Data) -> Data {
        // Cannot throw: the index key is 32 bytes by construction.
        (try? AtRestSeal.blindIndex(nucHash, table: "devices", column: "nuc_hash", indexKey: indexKey)) ?? Data()
    }
}
