import Foundation

/// A C2SP signed note: a text ending in a newline, a blank line, then one or more signature
/// lines `— <key name> b64(u32be key ID ‖ signature)`.
///
/// Opening a note checks it the way the spec asks: signatures from unknown keys are ignored,
/// a signature from a known key that does not verify rejects the whole note, and at least
/// one known key must have signed.
public struct SignedNote: Sendable, Hashable {
    /// One signature line.
    public struct Signature: Sendable, Hashable {
        /// The key name.
        public var name: String
        /// The 32-bit key ID (the first four bytes of the decoded line).
        public var keyID: UInt32
        /// The signature proper, after the key ID.
        public var bytes: Data

        public init(name: String, keyID: UInt32, bytes: Data) {
            self.name = name
            self.keyID = keyID
            self.bytes = bytes
        }

        /// `— <name> b64(keyID ‖ bytes)\n`.
        public var line: String {
            var raw = withUnsafeBytes(of: keyID.bigEndian) { Data($0) }
            raw.append(bytes)
            return "\u{2014} \(name) \(Base64.encode(raw))\n"
        }
    }

    /// The signed text, including its final newline.
    public var text: String
    /// The signature lines, in order.
    public var signatures: [Signature]

    /// The most signature lines a note may carry (C2SP asks verifiers to accept at least 16).
    public static let maxSignatures = 64
    /// The largest note accepted, in bytes.
    public static let maxSize = 64 * 1024

    public init(text: String, signatures: [Signature] = []) {
        self.text = text
        self.signatures = signatures
    }

    /// The note as written: text, blank line, signature lines.
    public var formatted: String { text + "\n" + signatures.map(\.line).joined() }

    /// Parses a note; `malformed_note` unless it is well formed.
    public static func parse(_ bytes: some DataProtocol) throws(HallmarkCryptoError) -> SignedNote {
        guard bytes.count <= maxSize else { throw HallmarkCryptoError.malformedNote("the note is longer than \(maxSize) bytes") }
        guard let note = String(validating: Array(bytes), as: UTF8.self) else {
            throw HallmarkCryptoError.malformedNote("the note is not UTF-8")
        }
        guard note.unicodeScalars.allSatisfy({ $0 == "\n" || ($0.value >= 0x20 && $0.value != 0x7F) }) else {
            throw HallmarkCryptoError.malformedNote("the note has control characters")
        }
        // The text ends at the last blank line; the signature block follows it.
        guard note.hasSuffix("\n"), let split = note.range(of: "\n\n", options: .backwards) else {
            throw HallmarkCryptoError.malformedNote("a note is a text, a blank line and signature lines")
        }
        let text = String(note[..<split.lowerBound]) + "\n"
        let lines = note[split.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        guard !lines.isEmpty, lines.count <= maxSignatures else {
            throw HallmarkCryptoError.malformedNote("a note has 1 to \(maxSignatures) signature lines")
        }
        var signatures: [Signature] = []
        for line in lines {
            guard line.hasPrefix("\u{2014} ") else {
                throw HallmarkCryptoError.malformedNote("a signature line starts with an em dash and a space")
            }
            let parts = line.dropFirst(2).split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count == 2, NoteVerifierKey.isValidName(String(parts[0])),
                let raw = try? Base64.decode(String(parts[1])), raw.count > 4
            else {
                throw HallmarkCryptoError.malformedNote("a signature line is '— <key name> <b64 key ID and signature>'")
            }
            signatures.append(
                Signature(
                    name: String(parts[0]), keyID: raw.prefix(4).reduce(0) { $0 << 8 | UInt32($1) },
                    bytes: Data(raw.dropFirst(4))))
        }
        return SignedNote(text: text, signatures: signatures)
    }

    /// The keys among `keys` whose signatures are on the note and verify, with the time of
    /// each cosignature (nil for a plain Ed25519 signature). Throws `authentication_failed`
    /// when a known key's signature fails, or when no known key signed.
    public func verified(by keys: [NoteVerifierKey]) throws(HallmarkCryptoError) -> [(key: NoteVerifierKey, time: UInt64?)] {
        var verified: [(key: NoteVerifierKey, time: UInt64?)] = []
        for signature in signatures {
            guard let key = keys.first(where: { $0.name == signature.name && $0.keyID == signature.keyID }) else {
                continue
            }
            guard let time = NoteSigner.check(signature, of: text, by: key) else {
                throw HallmarkCryptoError(.authenticationFailed, "the signature of \(key.name) does not verify")
            }
            verified.append((key, key.algorithm == .cosignatureV1 ? time : nil))
        }
        guard !verified.isEmpty else {
            throw HallmarkCryptoError(.authenticationFailed, "no known key signed the note")
        }
        return verified
    }
}

extension HallmarkCryptoError {
    /// `malformed_note`: a note, checkpoint, proof or request text that is not well formed.
    public static func malformedNote(_ reason: String) -> HallmarkCryptoError { HallmarkCryptoError(.malformedNote, reason) }
}
