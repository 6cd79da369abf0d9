import CHallmarkPBKDF2
import Foundation
import libcrypto

/// The C-backed PBKDF2 implementations. Internal: callers use `PBKDF2`.
enum NativePBKDF2 {
    static var hasSHAExtensions: Bool { hallmark_pbkdf2_cpu_has_sha_ni() == 1 }

    /// The CHallmarkPBKDF2 batch call. Buffers are pinned for the duration of the call.
    static func fast(_ requests: [PBKDF2.Request], portable: Bool) throws(HallmarkCryptoError) -> [Data] {
        guard !requests.isEmpty else { return [] }
        // One contiguous arena for all inputs and outputs keeps the pointers valid together.
        var offsets: [(pw: Int, salt: Int, out: Int)] = []
        var total = 0
        for r in requests {
            offsets.append((total, total + r.password.count, total + r.password.count + r.salt.count))
            total += r.password.count + r.salt.count + r.keyLength
        }
        var arena = [UInt8](repeating: 0, count: total)
        for (r, o) in zip(requests, offsets) {
            arena.replaceSubrange(o.pw..<(o.pw + r.password.count), with: r.password)
            arena.replaceSubrange(o.salt..<(o.salt + r.salt.count), with: r.salt)
        }
        let impl = portable ? HALLMARK_PBKDF2_IMPL_PORTABLE : HALLMARK_PBKDF2_IMPL_AUTO
        let rc = arena.withUnsafeMutableBufferPointer { buf -> Int32 in
            let base = buf.baseAddress!
            let jobs = zip(requests, offsets).map { r, o in
                hallmark_pbkdf2_job(
                    password: base + o.pw, password_len: r.password.count,
                    salt: base + o.salt, salt_len: r.salt.count,
                    iterations: UInt32(r.iterations),
                    out: base + o.out, out_len: r.keyLength)
            }
            return hallmark_pbkdf2_sha256_batch(jobs, jobs.count, impl)
        }
        defer { for i in arena.indices { arena[i] = 0 } }
        guard rc == 0 else { throw HallmarkCryptoError(.derivationFailed, "PBKDF2 derivation failed") }
        return zip(requests, offsets).map { r, o in Data(arena[o.out..<(o.out + r.keyLength)]) }
    }

    /// OpenSSL's PKCS5_PBKDF2_HMAC with SHA-256.
    static func openSSL(_ r: PBKDF2.Request) throws(HallmarkCryptoError) -> Data {
        guard r.iterations <= Int(Int32.max), r.password.count <= Int(Int32.max),
            r.salt.count <= Int(Int32.max), r.keyLength <= Int(Int32.max)
        else {
            throw HallmarkCryptoError(.invalidArgument, "input too large for OpenSSL PBKDF2")
        }
        var out = [UInt8](repeating: 0, count: r.keyLength)
        // Arrays with one spare byte so empty inputs still have a valid pointer.
        let password = [UInt8](r.password) + [0], salt = [UInt8](r.salt) + [0]
        let rc = password.withUnsafeBufferPointer { pw in
            salt.withUnsafeBufferPointer { s in
                pw.withMemoryRebound(to: CChar.self) { pwc in
                    PKCS5_PBKDF2_HMAC(
                        pwc.baseAddress, Int32(r.password.count),
                        s.baseAddress, Int32(r.salt.count),
                        Int32(r.iterations), EVP_sha256(), Int32(r.keyLength), &out)
                }
            }
        }
        guard rc == 1 else { throw HallmarkCryptoError(.derivationFailed, "OpenSSL PBKDF2 failed") }
        return Data(out)
    }
}
