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

    public init(treeSize: UInt64, rootHash: String, timestamp: UInt64, signature: String, keyID: String) {
        self.treeSize = treeSize
        self.rootHash = rootHash
        self.timestamp = timestamp
        self.signature = signature
        self.keyID = keyID
    }

    /// Signs `checkpoint` with the aggregator's Ed25519 seed.
    public init(_ checkpoint: LogCheckpoint, seed: some DataProtocol) throws(HallmarkCryptoError) {
        let publicKey = try Ed25519.keyPair(seed: seed).publicKey
        self.init(
            treeSize: checkpoint.treeSize, rootHash: Hex.encode(checkpoint.rootHash), timestamp: checkpoint.timestamp,
            signature: Base64.encode(try checkpoint.sign(seed: seed)), keyID: Self.keyID(publicKey: publicKey))
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
        case signature, timestamp
        case treeSize = "tree_size"
        case rootHash = "root_hash"
        case keyID = "key_id"
    }
}
