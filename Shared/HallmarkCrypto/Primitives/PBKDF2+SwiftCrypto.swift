import Crypto
import CryptoExtras
import Foundation

extension PBKDF2 {
    /// swift-crypto's implementation; `unsafeUncheckedRounds` because it refuses < 210,000
    /// rounds otherwise and the protocols fix 200,000.
    static func swiftCrypto(_ r: Request) throws(HallmarkCryptoError) -> Data {
        try mapErrors(.derivationFailed, "swift-crypto PBKDF2 failed") {
            try KDF.Insecure.PBKDF2.deriveKey(
                from: r.password, salt: r.salt, using: .sha256,
                outputByteCount: r.keyLength,
                unsafeUncheckedRounds: r.iterations
            )
            .withUnsafeBytes { Data($0) }
        }
    }
}
