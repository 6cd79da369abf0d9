import Foundation
import HallmarkCore
import HallmarkCrypto

/// The operators' Ed25519 public keys that may sign admin commands and privacy requests, by
/// key id. Each service reads its own: a file (`HALLMARK_<SERVICE>_OPERATOR_KEYS_FILE`) or a
/// variable (`HALLMARK_<SERVICE>_OPERATOR_KEYS`); the private keys stay with the operators' CLI.
///
/// Format: entries separated by newlines, commas or spaces; `#` starts a comment line; each
/// entry is `<key id>=<b64 of the 32-byte public key>`, as `hallmark authority operator-key`
/// prints it. A key id is 1–64 of `A–Z a–z 0–9 . _ -`, starting with a letter or digit. To
/// revoke a key, remove its line and restart.
public struct OperatorKeys: Sendable, Hashable {
    /// Public keys by key id.
    public let keys: [String: Data]

    /// Keys from parts; every key must be 32 bytes under a valid id.
    public init(_ keys: [String: Data] = [:]) throws(ConfigurationError) {
        for (id, key) in keys where !Self.isValidKeyID(id) || key.count != 32 {
            throw ConfigurationError(
                variable: "operator keys",
                reason: "key \(Redaction.name(id)) is not a 32-byte key under a valid id")
        }
        self.keys = keys
    }

    /// No keys: every admin command is refused.
    public static let none = OperatorKeys(unchecked: [:])

    private init(unchecked keys: [String: Data]) { self.keys = keys }

    /// True when no key is configured.
    public var isEmpty: Bool { keys.isEmpty }

    /// The public key of `id`.
    public subscript(id: String) -> Data? { keys[id] }

    /// Reads `<prefix>_OPERATOR_KEYS_FILE`, else `<prefix>_OPERATOR_KEYS` (the prefix is the
    /// service's, e.g. `HALLMARK_SIGNER`); no keys when neither is set.
    public static func fromEnvironment(
        _ env: [String: String], prefix: String = "HALLMARK_AUTHORITY"
    )
        throws(ConfigurationError) -> OperatorKeys
    {
        guard let (text, variable) = try variable(prefix: prefix).text(in: Settings(env)) else { return .none }
        return try parse(text, variable: variable)
    }

    /// `<prefix>_OPERATOR_KEYS_FILE`, else `<prefix>_OPERATOR_KEYS`: declared once.
    public static func variable(prefix: String) -> FileSetting {
        FileSetting(
            "\(prefix)_OPERATOR_KEYS",
            doc: "the operator keys that may sign admin and privacy requests (<key id>=<b64 Ed25519 public key>, …)",
            secret: false)
    }

    /// Parses the keys text; errors name the variable and the entry's position, never a value.
    public static func parse(_ text: String, variable: String) throws(ConfigurationError) -> OperatorKeys {
        var keys: [String: Data] = [:]
        let lines = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }
        let entries = lines.flatMap { $0.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" || $0 == "\r" }) }
        for (n, entry) in entries.enumerated() {
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, isValidKeyID(parts[0]) else {
                throw ConfigurationError(variable: variable, reason: "entry \(n + 1) is not <key id>=<b64 public key>")
            }
            guard let key = try? Base64.decode(parts[1], length: 32) else {
                throw ConfigurationError(variable: variable, reason: "entry \(n + 1): the public key is not b64 of 32 bytes")
            }
            guard keys.updateValue(key, forKey: parts[0]) == nil else {
                throw ConfigurationError(variable: variable, reason: "entry \(n + 1): key id listed twice")
            }
        }
        return OperatorKeys(unchecked: keys)
    }

    /// The schema's key-id rule: 1–64 of `A–Z a–z 0–9 . _ -`, starting with a letter or digit.
    public static func isValidKeyID(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        func alnum(_ b: UInt8) -> Bool { (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) }
        guard let first = bytes.first, bytes.count <= 64, alnum(first) else { return false }
        return bytes.allSatisfy { alnum($0) || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D }
    }

    /// The line an operator adds to a service's keys file for `publicKey`.
    public static func entry(keyID: String, publicKey: Data) -> String { "\(keyID)=\(Base64.encode(publicKey))" }
}
