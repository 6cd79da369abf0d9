import CHallmarkPBKDF2
import Foundation

/// Cryptographically secure random bytes from the kernel (getrandom). Fails closed: when
/// the source is unavailable it throws `randomUnavailable`, never returns weak bytes or traps.
public enum SecureRandom {
    /// `count` random bytes.
    public static func bytes(_ count: Int) throws(HallmarkCryptoError) -> Data {
        guard count >= 0 else { throw HallmarkCryptoError(.invalidArgument, "negative byte count") }
        var out = Data(count: count)
        guard count > 0 else { return out }
        let rc = out.withUnsafeMutableBytes { raw in
            hallmark_random_bytes(raw.baseAddress!.assumingMemoryBound(to: UInt8.self), raw.count)
        }
        guard rc == 0 else { throw HallmarkCryptoError(.randomUnavailable, "the system random source failed") }
        return out
    }
}
