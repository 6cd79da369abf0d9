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

    /// Reads the 73 leaf bytes (a zero parent hash is no parent); `invalid_length` otherwise.
    public init(bytes: some DataProtocol) throws(HallmarkCryptoError) {
        let raw = Data(bytes)
        guard raw.count == 73 else { throw HallmarkCryptoError(.invalidLength, "a log leaf is 73 bytes") }
        let parent = raw.subdata(in: 41..<73)
        try self.init(
            imageHash: raw.subdata(in: 0..<32), timestamp: raw[32..<40].reduce(0) { $0 << 8 | UInt64($1) },
            modificationLevel: raw[40], parentHash: parent.allSatisfy { $0 == 0 } ? nil : parent)
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
