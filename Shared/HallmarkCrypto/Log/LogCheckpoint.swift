import Foundation
import HallmarkCore

/// A BM-LOG checkpoint `{tree_size, root_hash, timestamp}`, signed with Ed25519.
///
/// Signed bytes (71 in all), fixed so any implementation can verify:
/// `utf8("hallmark-checkpoint-v1\n")` (23) ‖ `u64be(tree_size)` (8) ‖ `root_hash` (32) ‖
/// `u64be(timestamp)` (8, Unix seconds). The prefix keeps these signatures from being valid
/// for any other message the key might sign.
public struct LogCheckpoint: Codable, Sendable, Hashable {
    /// Domain-separation prefix of the signed bytes.
    public static let domain = Data("hallmark-checkpoint-v1\n".utf8)

    /// Number of leaves.
    public var treeSize: UInt64
    /// The 32-byte root; hex in JSON.
    public var rootHash: Data
    /// When the checkpoint was made, Unix seconds.
    public var timestamp: UInt64

    enum CodingKeys: String, CodingKey {
        case treeSize = "tree_size"
        case rootHash = "root_hash"
        case timestamp
    }

    /// Creates a checkpoint; `invalidLength` unless the root is 32 bytes.
    public init(treeSize: UInt64, rootHash: Data, timestamp: UInt64) throws(HallmarkCryptoError) {
        guard rootHash.count == 32 else { throw HallmarkCryptoError(.invalidLength, "root hash must be 32 bytes") }
        self.treeSize = treeSize
        self.rootHash = rootHash
        self.timestamp = timestamp
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        treeSize = try c.decode(UInt64.self, forKey: .treeSize)
        timestamp = try c.decode(UInt64.self, forKey: .timestamp)
        let hex = try c.decode(String.self, forKey: .rootHash)
        guard let root = try? Hex.decode(hex, length: 32) else {
            throw DecodingError.dataCorruptedError(forKey: .rootHash, in: c, debugDescription: "root_hash must be 64 hex digits")
        }
        rootHash = root
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(treeSize, forKey: .treeSize)
        try c.encode(Hex.encode(rootHash), forKey: .rootHash)
        try c.encode(timestamp, forKey: .timestamp)
    }

    /// The bytes the Ed25519 signature covers, 71 bytes:
    /// `"hallmark-checkpoint-v1\n" ‖ u64be(tree_size) ‖ root_hash ‖ u64be(timestamp)`.
    public var signingBytes: Data {
        var out = Self.domain
        withUnsafeBytes(of: treeSize.bigEndian) { out.append(contentsOf: $0) }
        out.append(rootHash)
        withUnsafeBytes(of: timestamp.bigEndian) { out.append(contentsOf: $0) }
        return out
    }

    /// The 64-byte Ed25519 signature with the aggregator's seed.
    public func sign(seed: some DataProtocol) throws(HallmarkCryptoError) -> Data {
        try Ed25519.sign(signingBytes, seed: seed)
    }

    /// Whether `signature` is the aggregator's signature of this checkpoint.
    public func verify(signature: some DataProtocol, publicKey: some DataProtocol) -> Bool {
        Ed25519.verify(signature: signature, message: signingBytes, publicKey: publicKey)
    }

    /// Parses checkpoint JSON.
    public static func parse(_ data: some DataProtocol) throws(HallmarkCryptoError) -> LogCheckpoint {
        try JSONCoding.decode(LogCheckpoint.self, from: data, what: "checkpoint")
    }

    /// Compact JSON with sorted keys.
    public func jsonData() throws(HallmarkCryptoError) -> Data { try JSONCoding.encodeData(self, what: "checkpoint") }
}
