import Foundation

/// A BM-LOG leaf: `imageHash (32) ‖ u64be(timestamp) ‖ u8(modificationLevel) ‖ parentHash (32, zeros if none)`.
public struct BirthmarkLogLeaf: Sendable, Hashable {
    /// SHA-256 of the image, 32 bytes.
    public var imageHash: Data
    /// Acceptance time (Unix seconds).
    public var timestamp: UInt64
    /// Modification level (0 = original).
    public var modificationLevel: UInt8
    /// Parent image hash, 32 bytes, or nil.
    public var parentHash: Data?

    /// Creates a leaf; `invalidLength` unless the hashes are 32 bytes.
    public init(
        imageHash: Data, timestamp: UInt64, modificationLevel: UInt8,
        parentHash: Data? = nil
    ) throws(HallmarkCryptoError) {
        guard imageHash.count == 32, parentHash.map({ $0.count == 32 }) ?? true else {
            throw HallmarkCryptoError(.invalidLength, "image hashes must be 32 bytes")
        }
        self.imageHash = imageHash
        self.timestamp = timestamp
        self.modificationLevel = modificationLevel
        self.parentHash = parentHash
    }

    /// The 73 leaf bytes.
    public var bytes: Data {
        var out = imageHash
        withUnsafeBytes(of: timestamp.bigEndian) { out.append(contentsOf: $0) }
        out.append(modificationLevel)
        out.append(parentHash ?? Data(count: 32))
        return out
    }

    /// `MerkleTree.leafHash(bytes)`.
    public var leafHash: Data { MerkleTree.leafHash(bytes) }
}
