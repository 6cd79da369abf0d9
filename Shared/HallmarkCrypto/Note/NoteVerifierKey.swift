import Foundation

/// A C2SP signed-note verifier key ("vkey"): `<name>+<hex8(key ID)>+b64(type ‖ public key)`.
///
/// The key ID is `SHA-256(name ‖ 0x0A ‖ type ‖ public key)[0..<4]`, so one Ed25519 key
/// used for two signature types (a log's note signature and its timestamp cosignature) has
/// two key IDs and two vkeys.
public struct NoteVerifierKey: Sendable, Hashable, CustomStringConvertible {
    /// The signature types Hallmark signs and verifies (C2SP signed-note's assigned bytes).
    public enum Algorithm: UInt8, Sendable, Hashable {
        /// `0x01`: Ed25519 over the note text.
        case ed25519 = 0x01
        /// `0x04`: a timestamped Ed25519 checkpoint cosignature (C2SP tlog-cosignature).
        case cosignatureV1 = 0x04
    }

    /// The key name, as the signature lines write it.
    public let name: String
    /// The 32-bit key ID.
    public let keyID: UInt32
    /// The signature type.
    public let algorithm: Algorithm
    /// The 32-byte Ed25519 public key.
    public let publicKey: Data

    /// The vkey of `publicKey` under `name` for `algorithm`.
    public init(name: String, algorithm: Algorithm, publicKey: some DataProtocol) throws(HallmarkCryptoError) {
        guard Self.isValidName(name) else {
            throw HallmarkCryptoError(.invalidArgument, "a key name must be non-empty, without spaces or '+'")
        }
        guard publicKey.count == 32 else { throw HallmarkCryptoError(.invalidKey, "an Ed25519 public key is 32 bytes") }
        self.name = name
        self.algorithm = algorithm
        self.publicKey = Data(publicKey)
        keyID = Self.keyID(name: name, algorithm: algorithm, publicKey: self.publicKey)
    }

    /// Parses a vkey; its key ID must be the one its name, type and key give.
    public init(parsing text: String) throws(HallmarkCryptoError) {
        // The key's base64 may itself hold '+': only the first two separate the parts.
        let parts = text.split(separator: "+", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1].utf8.count == 8, let id = UInt32(parts[1], radix: 16),
            parts[1].allSatisfy({ $0.isHexDigit && !$0.isUppercase })
        else {
            throw HallmarkCryptoError(.invalidKey, "a vkey is <name>+<8 hex digits>+<b64 key>")
        }
        let material = try Base64.decode(String(parts[2]))
        guard let type = material.first, let algorithm = Algorithm(rawValue: type) else {
            throw HallmarkCryptoError(.invalidKey, "the vkey's signature type is not Ed25519 (0x01) or cosignature/v1 (0x04)")
        }
        try self.init(name: String(parts[0]), algorithm: algorithm, publicKey: material.dropFirst())
        guard keyID == id else { throw HallmarkCryptoError(.invalidKey, "the vkey's key ID does not match its key") }
    }

    /// The same key for another signature type (its own key ID).
    public func `for`(_ algorithm: Algorithm) -> NoteVerifierKey {
        // The name and key were valid for self.
        try! NoteVerifierKey(name: name, algorithm: algorithm, publicKey: publicKey)
    }

    /// `<name>+<hex8(key ID)>+b64(type ‖ public key)`.
    public var description: String {
        name + "+" + Self.hex8(keyID) + "+" + Base64.encode([algorithm.rawValue] + Array(publicKey))
    }

    /// `SHA-256(name ‖ 0x0A ‖ type ‖ publicKey)[0..<4]`, big-endian.
    public static func keyID(name: String, algorithm: Algorithm, publicKey: some DataProtocol) -> UInt32 {
        var bytes = Data(name.utf8)
        bytes.append(0x0A)
        bytes.append(algorithm.rawValue)
        bytes.append(contentsOf: publicKey)
        return SHA256Hash.digest(bytes).prefix(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Whether `name` can name a key: non-empty, no Unicode spaces, no `+`, no control
    /// characters.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty
            && name.unicodeScalars.allSatisfy {
                $0 != "+" && !$0.properties.isWhitespace && $0.value >= 0x20 && $0.value != 0x7F
            }
    }

    static func hex8(_ id: UInt32) -> String {
        let hex = String(id, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }
}
