import Foundation

/// Versioned key-encryption keys (KEKs) for sealing values at rest. The keys come from a
/// file or the environment (the caller's concern), never from the database.
public struct KeyEncryptionKeyring: Sendable {
    /// KEK version → 32-byte key.
    public let keys: [UInt32: Data]
    /// The version new seals use.
    public let currentVersion: UInt32

    /// Creates a keyring; `invalidKey` unless every key is 32 bytes and `currentVersion` exists.
    public init(keys: [UInt32: Data], currentVersion: UInt32) throws(HallmarkCryptoError) {
        guard keys.values.allSatisfy({ $0.count == 32 }) else {
            throw HallmarkCryptoError(.invalidKey, "KEKs must be 32 bytes")
        }
        guard keys[currentVersion] != nil else {
            throw HallmarkCryptoError(.unknownKeyVersion, "current KEK version \(currentVersion) has no key")
        }
        self.keys = keys
        self.currentVersion = currentVersion
    }

    /// The key for a version, or `unknownKeyVersion`.
    public func key(version: UInt32) throws(HallmarkCryptoError) -> Data {
        guard let key = keys[version] else {
            throw HallmarkCryptoError(.unknownKeyVersion, "no KEK with version \(version)")
        }
        return key
    }
}
