import Crypto
import Foundation

/// SHA-256 (FIPS 180-4) over swift-crypto.
public enum SHA256Hash {
    /// The 32-byte digest of `data`.
    public static func digest(_ data: some DataProtocol) -> Data {
        Data(SHA256.hash(data: data))
    }

    /// The digest of `parts` one after another, hashed in place: no concatenated copy.
    public static func digest(parts: [Data]) -> Data {
        var hasher = SHA256()
        for part in parts { hasher.update(data: part) }
        return Data(hasher.finalize())
    }

    /// The digest of raw bytes, without generic dispatch (a caller in another module reaches
    /// `digest(_:)` unspecialized: metadata lookups cost more than hashing a short input).
    public static func digest(bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(bufferPointer: bytes)
        return Array(hasher.finalize())
    }
}
