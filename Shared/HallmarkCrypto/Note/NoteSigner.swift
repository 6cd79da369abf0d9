import Foundation

/// Signs note texts with an Ed25519 key under a name: plain note signatures (type 0x01) or
/// timestamped checkpoint cosignatures (type 0x04, C2SP tlog-cosignature), whose signed
/// message is `cosignature/v1\ntime <unix seconds>\n` ‖ the note text and whose signature
/// is `u64be(time) ‖ Ed25519 signature`. The seed is never printed.
public struct NoteSigner: Sendable {
    /// What verifies this signer's signatures.
    public let verifierKey: NoteVerifierKey
    let key: Ed25519.SigningKey

    /// A signer for `name` with the Ed25519 key pair of `seed` (32 bytes).
    public init(name: String, seed: some DataProtocol, algorithm: NoteVerifierKey.Algorithm) throws(HallmarkCryptoError) {
        try self.init(name: name, key: Ed25519.SigningKey(seed: seed), algorithm: algorithm)
    }

    /// A signer for `name` with a key already derived.
    public init(name: String, key: Ed25519.SigningKey, algorithm: NoteVerifierKey.Algorithm) throws(HallmarkCryptoError) {
        verifierKey = try NoteVerifierKey(name: name, algorithm: algorithm, publicKey: key.publicKey)
        self.key = key
    }

    /// The signature line for `text` (which must end in a newline); a cosignature carries
    /// `time` (Unix seconds, below 2^63).
    public func sign(
        _ text: String, time: UInt64 = UInt64(Date().timeIntervalSince1970)
    ) throws(HallmarkCryptoError)
        -> SignedNote.Signature
    {
        guard text.hasSuffix("\n") else { throw HallmarkCryptoError.malformedNote("a note text ends in a newline") }
        switch verifierKey.algorithm {
        case .ed25519:
            return SignedNote.Signature(
                name: verifierKey.name, keyID: verifierKey.keyID, bytes: try key.sign(Data(text.utf8)))
        case .cosignatureV1:
            guard time < 1 << 63 else { throw HallmarkCryptoError(.invalidArgument, "a cosignature time is below 2^63") }
            var bytes = withUnsafeBytes(of: time.bigEndian) { Data($0) }
            bytes.append(try key.sign(Self.cosignedMessage(text, time: time)))
            return SignedNote.Signature(name: verifierKey.name, keyID: verifierKey.keyID, bytes: bytes)
        }
    }

    /// `cosignature/v1\ntime <time>\n` ‖ text.
    static func cosignedMessage(_ text: String, time: UInt64) -> Data {
        Data("cosignature/v1\ntime \(time)\n\(text)".utf8)
    }

    /// The signature's time (0 for a plain signature) when `key` made `signature` over `text`.
    static func check(_ signature: SignedNote.Signature, of text: String, by key: NoteVerifierKey) -> UInt64? {
        switch key.algorithm {
        case .ed25519:
            return Ed25519.verify(signature: signature.bytes, message: Data(text.utf8), publicKey: key.publicKey) ? 0 : nil
        case .cosignatureV1:
            guard signature.bytes.count == 72 else { return nil }
            let time = signature.bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
            guard time < 1 << 63 else { return nil }
            return Ed25519.verify(
                signature: signature.bytes.dropFirst(8), message: cosignedMessage(text, time: time),
                publicKey: key.publicKey) ? time : nil
        }
    }
}
