/// `hallmark.checkpoint.v1`: a signed BM-LOG checkpoint (`birthmark.checkpoints`), published
/// after each batch the log appends.
public struct Checkpoint: MessageBody, Hashable {
    public static let schemaName = "hallmark.checkpoint.v1"

    public var treeSize: UInt64
    /// The RFC 6962 root, hex.
    public var rootHash: String
    /// Unix seconds, as signed.
    public var timestamp: UInt64
    /// Ed25519, base64.
    public var signature: String
    /// SHA-256 of the signing public key, hex.
    public var keyID: String
    /// The same checkpoint as a C2SP signed note (``SignedCheckpoint/note``).
    public var note: String?

    public init(_ signed: SignedCheckpoint) {
        treeSize = signed.treeSize
        rootHash = signed.rootHash
        timestamp = signed.timestamp
        signature = signed.signature
        keyID = signed.keyID
        note = signed.note
    }

    /// The checkpoint and its signature, as a verification answer carries them.
    public var signed: SignedCheckpoint {
        SignedCheckpoint(
            treeSize: treeSize, rootHash: rootHash, timestamp: timestamp, signature: signature, keyID: keyID, note: note)
    }

    enum CodingKeys: String, CodingKey {
        case signature, timestamp, note
        case treeSize = "tree_size"
        case rootHash = "root_hash"
        case keyID = "key_id"
    }
}
