import Crypto
import Foundation

/// HKDF-SHA256 (RFC 5869). An empty salt is a zero-length salt, which RFC 5869 treats as 32
/// zero bytes. ``derive(ikm:salt:info:length:)`` runs on the crypto module's own SHA-256
/// (see ``HMACSHA256``); tests check it against swift-crypto and the RFC 5869 vectors.
public enum HKDFSHA256 {
    /// Largest output RFC 5869 allows for SHA-256 (255 blocks).
    public static let maximumLength = 255 * 32

    /// Extract-then-expand.
    public static func derive(
        ikm: some DataProtocol, salt: some DataProtocol = Data(),
        info: some DataProtocol = Data(), length: Int
    ) throws(HallmarkCryptoError) -> Data {
        try checkLength(length)
        guard let key = NativeHMAC.hkdf(ikm: ikm, salt: salt, info: info, length: length) else {
            throw HallmarkCryptoError(.derivationFailed, "HKDF derivation failed")
        }
        return key
    }

    /// Extract-then-expand through swift-crypto (the reference the fast path is tested against).
    public static func referenceDerive(
        ikm: some DataProtocol, salt: some DataProtocol = Data(),
        info: some DataProtocol = Data(), length: Int
    ) throws(HallmarkCryptoError) -> Data {
        try checkLength(length)
        let key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Data(ikm)), salt: salt,
            info: info, outputByteCount: length)
        return key.withUnsafeBytes { Data($0) }
    }

    /// HKDF-Expand only, with `prk` used directly as the pseudorandom key.
    public static func expand(
        prk: some DataProtocol, info: some DataProtocol = Data(),
        length: Int
    ) throws(HallmarkCryptoError) -> Data {
        try checkLength(length)
        guard prk.count >= 32 else { throw HallmarkCryptoError(.invalidKey, "HKDF PRK shorter than 32 bytes") }
        let key = HKDF<SHA256>.expand(pseudoRandomKey: Data(prk), info: info, outputByteCount: length)
        return key.withUnsafeBytes { Data($0) }
    }

    private static func checkLength(_ length: Int) throws(HallmarkCryptoError) {
        guard length > 0, length <= maximumLength else {
            throw HallmarkCryptoError(.invalidArgument, "HKDF length must be 1...\(maximumLength)")
        }
    }
}
