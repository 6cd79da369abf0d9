import Foundation
import HallmarkCrypto

/// A BM-LOG checkpoint with its Ed25519 signature and key id, as `hallmark.checkpoint.v1`
/// carries it at top level and `hallmark.log.verify.result.v1` as `checkpoint`.
public struct SignedCheckpoint: Codable, Sendable, Hashable {
    public var treeSize: UInt64
    /// The RFC 6962 root, hex.
    public var rootHash: String
    /// Unix seconds.
    public var timestamp: UInt64
    /// Ed25519 over ``HallmarkCrypto/LogCheckpoint/signingBytes``, base64 (64 bytes).
    public var signature: String
    /// SHA-256 of the raw 32-byte public key, hex.
    public var keyID: String
    /// The same checkpoint as a C2SP signed note (``HallmarkCrypto/SignedNote``), as written;
    /// checked with the log's vkey. Absent from checkpoints made before the log had an origin.
    public var note: String?

    public init(treeSize: UInt64, rootHash: String, timestamp: UInt64, signature: String, keyID: String, note: String? = nil) {
        self.treeSize = treeSize
        self.rootHash = rootHash
        self.timestamp = timestamp
        self.signature = signature
        self.keyID = keyID
        self.note = note
    }

    /// Signs `checkpoint` with the aggregator's Ed25519 seed; `note` is its signed note.
    public init(_ checkpoint: LogCheckpoint, seed: some DataProtocol, note: SignedNote? = nil) throws(HallmarkCryptoError) {
        try self.init(checkpoint, key: Ed25519.SigningKey(seed: seed), note: note)
    }

    /// Signs `checkpoint` with the aggregator's key, already derived.
    public init(_ checkpoint: LogCheckpoint, key: Ed25519.SigningKey, note: SignedNote? = nil) throws(HallmarkCryptoError) {
        self.init(
            treeSize: checkpoint.treeSize, rootHash: Hex.encode(checkpoint.rootHash), timestamp: checkpoint.timestamp,
            signature: Base64.encode(try key.sign(checkpoint.signingBytes)), keyID: Self.keyID(publicKey: key.publicKey),
            note: note?.formatted)
    }

    /// The signed note, opened with the log's `vkey`: its checkpoint when the note verifies and
    /// says the same size and root as this checkpoint's fields; nil without a note; throws
    /// when the note is malformed, does not verify or disagrees.
    public func openNote(vkey: NoteVerifierKey) throws(HallmarkCryptoError) -> CheckpointText? {
        guard let note else { return nil }
        let text = try CheckpointText.open(SignedNote.parse(Array(note.utf8)), vkey: vkey)
        guard text.treeSize == treeSize, Hex.encode(text.rootHash) == rootHash else {
            throw HallmarkCryptoError(.invalidProof, "the note's checkpoint is not this checkpoint")
        }
        return text
    }

    /// The id of a public key: hex SHA-256 of its 32 raw bytes.
    public static func keyID(publicKey: some DataProtocol) -> String { Hex.encode(SHA256Hash.digest(Data(publicKey))) }

    /// The checkpoint, when the root is 64 hex digits.
    public var checkpoint: LogCheckpoint? {
        guard let root = try? Hex.decode(rootHash, length: 32) else { return nil }
        return try? LogCheckpoint(treeSize: treeSize, rootHash: root, timestamp: timestamp)
    }

    /// Whether `publicKey` is the key named by `key_id` and signed this checkpoint.
    public func verify(publicKey: some DataProtocol) -> Bool {
        guard keyID == Self.keyID(publicKey: publicKey), let checkpoint,
            let signature = try? Base64.decode(signature, length: 64)
        else { return false }
        return checkpoint.verify(signature: signature, publicKey: publicKey)
    }

    enum CodingKeys: String, CodingKey {
        case signature, timestamp, note
        case treeSize = "tree_size"
        case rootHash = "root_hash"
        case keyID = "key_id"
    }
}
