import Foundation
import HallmarkCore
import HallmarkCrypto

/// An operator's Ed25519 signature on an admin command or a privacy request. It covers the
/// message's members as received, envelope included, without `signature`, written canonically
/// (``CanonicalSigning``), so the id and `produced_at` are bound too (a replay keeps both) and
/// a member added, removed or changed after signing breaks it. The authority and every
/// privacy holder check it the same way, over the members they received.
public enum OperatorSignature {
    /// The bytes signed for a message whose top-level members are `fields`.
    public static func signedBytes(of fields: [String: JSONValue]) -> [UInt8] {
        CanonicalSigning.bytes(of: fields, without: ["signature"])
    }

    /// b64 of the signature of `message` (its `signature` member ignored) by the key pair of
    /// `seed` (32 bytes).
    static func sign(_ message: some Encodable, seed: some DataProtocol) throws -> String {
        Base64.encode(try Ed25519.sign(CanonicalSigning.bytes(of: message, without: ["signature"]), seed: seed))
    }

    /// Whether `signature` (b64 of 64 bytes) is `publicKey`'s signature of the message whose
    /// top-level members are `fields`.
    public static func verify(_ signature: String?, fields: [String: JSONValue], publicKey: some DataProtocol) -> Bool {
        guard let signature, let bytes = try? Base64.decode(signature, length: 64) else { return false }
        return Ed25519.verify(signature: bytes, message: signedBytes(of: fields), publicKey: publicKey)
    }
}
