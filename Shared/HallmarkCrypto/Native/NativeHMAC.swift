import CHallmarkPBKDF2
import Foundation

/// HMAC-SHA256 and HKDF-SHA256 on CHallmarkPBKDF2's SHA-256 (SHA-NI when present): the same
/// results as swift-crypto (the RFC 4231 / 5869 vectors check both), at a fraction of the
/// cost for the short inputs of key derivation, which runs on every validation.
enum NativeHMAC {
    static func mac(key: some DataProtocol, data: some DataProtocol) -> Data {
        var out = Data(count: 32)
        withBytes(key) { k in
            withBytes(data) { d in
                out.withUnsafeMutableBytes { o in
                    hallmark_hmac_sha256(
                        k.baseAddress, k.count, d.baseAddress, d.count,
                        o.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        return out
    }

    /// Nil when `length` is out of range (the caller checked it).
    static func hkdf(ikm: some DataProtocol, salt: some DataProtocol, info: some DataProtocol, length: Int) -> Data? {
        var out = Data(count: length)
        let rc = withBytes(ikm) { i in
            withBytes(salt) { s in
                withBytes(info) { n in
                    out.withUnsafeMutableBytes { o in
                        hallmark_hkdf_sha256(
                            i.baseAddress, i.count, s.baseAddress, s.count, n.baseAddress, n.count,
                            o.baseAddress!.assumingMemoryBound(to: UInt8.self), length)
                    }
                }
            }
        }
        return rc == 0 ? out : nil
    }

    /// The bytes as one buffer: in place when contiguous, else copied.
    static func withBytes<R>(_ bytes: some DataProtocol, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let data = bytes as? Data {
            return data.withUnsafeBytes { body($0.bindMemory(to: UInt8.self)) }
        }
        if let r = bytes.withContiguousStorageIfAvailable(body) { return r }
        return Array(bytes).withUnsafeBufferPointer(body)
    }
}
