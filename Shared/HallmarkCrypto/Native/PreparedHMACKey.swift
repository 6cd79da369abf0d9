import CHallmarkPBKDF2
import Foundation

/// An HMAC-SHA256 key prepared once: the SHA-256 states after its inner and outer pads, so
/// each MAC under it costs two compressions fewer (a blind index of a 32-byte value: three
/// instead of five). For a key that MACs many short messages, such as a blind-index key.
///
/// Owns the prepared state, zeroed when the key goes. Immutable once made, so shared freely.
public final class PreparedHMACKey: @unchecked Sendable {
    private let state: UnsafeMutablePointer<hallmark_hmac_prepared>

    /// Prepares `key` (any length, as HMAC takes it).
    public init(_ key: some DataProtocol) {
        state = .allocate(capacity: 1)
        var bytes = Array(key)
        bytes.withUnsafeBufferPointer { hallmark_hmac_sha256_prepare($0.baseAddress, $0.count, state) }
        // The copy goes with the key's pads computed: only the prepared state stays.
        bytes.withUnsafeMutableBufferPointer { $0.initialize(repeating: 0) }
    }

    deinit {
        UnsafeMutableRawPointer(state).initializeMemory(
            as: UInt8.self, repeating: 0, count: MemoryLayout<hallmark_hmac_prepared>.size)
        state.deallocate()
    }

    /// The 32-byte MAC of `prefix` followed by `value`.
    public func mac(_ prefix: Data, _ value: some DataProtocol) -> Data {
        var out = Data(count: 32)
        prefix.withUnsafeBytes { p in
            NativeHMAC.withBytes(value) { v in
                out.withUnsafeMutableBytes { o in
                    hallmark_hmac_sha256_prepared(
                        state, p.baseAddress?.assumingMemoryBound(to: UInt8.self), p.count, v.baseAddress, v.count,
                        o.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        return out
    }
}
