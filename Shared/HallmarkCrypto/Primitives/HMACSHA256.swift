import Crypto
import Foundation

/// HMAC-SHA256 (RFC 2104). Computed on the crypto module's own SHA-256 (SHA-NI when the CPU
/// has it), several times faster than swift-crypto's generic path on short inputs; tests
/// check it against swift-crypto and the RFC 4231 vectors.
public enum HMACSHA256 {
    /// The 32-byte MAC of `data` under `key`.
    public static func mac(key: some DataProtocol, data: some DataProtocol) -> Data {
        NativeHMAC.mac(key: key, data: data)
    }

    /// The same through swift-crypto (the reference the fast path is tested against).
    public static func referenceMAC(key: some DataProtocol, data: some DataProtocol) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: data, using: SymmetricKey(data: Data(key))))
    }

    /// Constant-time check that `mac` is the MAC of `data` under `key`.
    public static func verify(mac: some DataProtocol, key: some DataProtocol, data: some DataProtocol) -> Bool {
        ConstantTime.equal(self.mac(key: key, data: data), mac)
    }
}
