import Crypto
import Foundation

/// HMAC-SHA256 (RFC 2104) over swift-crypto.
public enum HMACSHA256 {
    /// The 32-byte MAC of `data` under `key`.
    public static func mac(key: some DataProtocol, data: some DataProtocol) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: data, using: SymmetricKey(data: Data(key))))
    }

    /// Constant-time check that `mac` is the MAC of `data` under `key`.
    public static func verify(mac: some DataProtocol, key: some DataProtocol, data: some DataProtocol) -> Bool {
        ConstantTime.equal(self.mac(key: key, data: data), mac)
    }
}
