import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages

/// The keys of one kind a service holds now (its KEKs, its signing secret versions, its
/// checkpoint key), as ``KeyRotationRecorder`` compares them: ids and check values, never keys.
public struct KeySet: Sendable, Equatable {
    /// The audit action a change to these keys is recorded as (one of the `…_rotation` ones).
    public let action: AuditRecord.Action
    /// Each key's id and check value: the first 8 bytes of HMAC-SHA256 keyed by the key over a
    /// fixed label, hex. It tells a key whose value changed under the same id; it reveals nothing
    /// of the key and is never published.
    public let checkValues: [String: String]
    /// The id of the key in use for new work (sealing, signing).
    public let current: String

    /// - Parameters:
    ///   - keys: each key's id (1-64 of `A-Z a-z 0-9 . _ -`; others are replaced by a digest)
    ///     and its material (for a public key, the public key).
    ///   - current: the id of the key in use; must be one of `keys`.
    public init(_ action: AuditRecord.Action, keys: [(id: String, material: Data)], current: String) {
        precondition(action.isKeyRotation, "a key set is recorded under a …_rotation action")
        self.action = action
        checkValues = Dictionary(
            keys.map { (Self.recordable($0.id), Self.checkValue(of: $0.material)) },
            uniquingKeysWith: { first, _ in first })
        self.current = Self.recordable(current)
        precondition(checkValues[self.current] != nil, "the current key is one of the keys")
    }

    /// A key id as records carry it: the id itself when the schema allows it, else a digest.
    static func recordable(_ id: String) -> String {
        let allowed = id.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2E || c == 0x5F
                || c == 0x2D
        }
        if allowed, (1...64).contains(id.utf8.count) { return id }
        return "id-" + Hex.encode(SHA256Hash.digest(Array(id.utf8)).prefix(16))
    }

    static func checkValue(of material: Data) -> String {
        Hex.encode(HMACSHA256.mac(key: material, data: Array("hallmark key check value".utf8)).prefix(8))
    }
}

extension KeySet {
    /// A service's KEKs (REST), as `kek.N`.
    public static func keks(_ keyring: KeyEncryptionKeyring) -> KeySet {
        KeySet(.kekRotation, keys: keyring.keys.map { ("kek.\($0.key)", $0.value) }, current: "kek.\(keyring.currentVersion)")
    }
}
