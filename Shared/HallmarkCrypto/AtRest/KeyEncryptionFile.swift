import Foundation
import HallmarkCore

/// The text format services read their key-encryption keys (REST) from, out of a file or a
/// variable, never from the database.
///
/// Entries are separated by newlines, commas or spaces; `#` starts a comment line.
/// `kek.<version>=<64 hex digits>` (one or more), optionally `current=<version>` (default: the
/// highest version), and optionally `index=<64 hex digits>` (a blind-index key). To rotate, add
/// a higher `kek.N`; old versions stay readable while listed.
public struct KeyEncryptionFile: Sendable {
    public let keyring: KeyEncryptionKeyring
    /// The `index=` key, when the text has one.
    public let indexKey: Data?

    /// Reads `<prefix>KEK_FILE`, else `<prefix>KEK` (e.g. prefix `HALLMARK_GATEWAY_`); errors
    /// name the variable, never a value.
    public static func fromEnvironment(_ env: [String: String], prefix: String) throws(HallmarkCryptoError) -> KeyEncryptionFile {
        let setting = variable(prefix: prefix)
        let found: (text: String, variable: String)?
        do { found = try setting.text(in: Settings(env)) } catch {
            throw HallmarkCryptoError(.invalidKey, "\(error.variable) \(error.reason)")
        }
        guard let found else { throw HallmarkCryptoError(.invalidKey, "set \(prefix)KEK_FILE or \(prefix)KEK") }
        return try parse(found.text, source: found.variable)
    }

    /// `<prefix>KEK_FILE`, else `<prefix>KEK`: declared once.
    public static func variable(prefix: String) -> FileSetting {
        FileSetting(prefix + "KEK", doc: "the key-encryption keys (kek.<version>=<64 hex>, current=, index=)")
    }

    /// Parses the text; errors name the source and the entry, never a value.
    public static func parse(_ text: String, source: String) throws(HallmarkCryptoError) -> KeyEncryptionFile {
        var keks: [UInt32: Data] = [:]
        var index: Data?
        var current: UInt32?
        func fail(_ reason: String) -> HallmarkCryptoError { HallmarkCryptoError(.invalidKey, "\(source): \(reason)") }
        let lines = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }
        let entries = lines.flatMap { $0.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" || $0 == "\r" }) }
        for entry in entries {
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw fail("an entry lacks '='") }
            let (name, value) = (parts[0], parts[1])
            if name == "index" {
                guard let key = try? Hex.decode(value, length: 32) else { throw fail("index must be 64 hex digits") }
                index = key
            } else if name == "current" {
                guard let v = UInt32(value) else { throw fail("bad current version") }
                current = v
            } else if name.hasPrefix("kek."), let version = UInt32(name.dropFirst(4)) {
                guard let key = try? Hex.decode(value, length: 32) else { throw fail("\(name) must be 64 hex digits") }
                keks[version] = key
            } else {
                throw fail("unknown entry \(name.prefix(20))")
            }
        }
        guard let version = current ?? keks.keys.max() else { throw fail("no kek.N entry") }
        do {
            return KeyEncryptionFile(keyring: try KeyEncryptionKeyring(keys: keks, currentVersion: version), indexKey: index)
        } catch {
            throw fail("current=\(version) has no kek.\(version)")
        }
    }

    /// A fresh text with one KEK (version 1), and an index key when asked, for development.
    public static func generateText(title: String, index: Bool) throws(HallmarkCryptoError) -> String {
        var text =
            "# \(title) (development). Keep out of the database and of git.\n"
            + "kek.1=\(Hex.encode(try SecureRandom.bytes(32)))\n"
        if index { text += "index=\(Hex.encode(try SecureRandom.bytes(32)))\n" }
        return text
    }
}
