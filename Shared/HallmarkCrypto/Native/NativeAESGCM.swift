import Foundation
import libcrypto

/// AES-256-GCM through OpenSSL's EVP interface: `AESGCM256`'s second backend, used to
/// cross-check swift-crypto and for callers that seal many small messages.
enum NativeAESGCM {
    /// Largest chunk handed to one EVP call (its lengths are `Int32`).
    private static let chunk = 1 << 30

    /// Ciphertext and tag, or nil when OpenSSL fails (it only does for bad parameters).
    static func seal(_ plaintext: Data, key: Data, nonce: Data, aad: Data) -> (ciphertext: Data, tag: Data)? {
        guard let ctx = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(ctx) }
        var ciphertext = Data(count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: AESGCM256.tagLength)
        let ok = key.withUnsafeBytes { k in
            nonce.withUnsafeBytes { n in
                EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), nil, nil, nil) == 1
                    && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, Int32(n.count), nil) == 1
                    && EVP_EncryptInit_ex(ctx, nil, nil, bytes(k), bytes(n)) == 1
            }
        }
        guard ok, update(ctx, aad, into: nil, encrypt: true),
            update(ctx, plaintext, into: &ciphertext, encrypt: true)
        else { return nil }
        var final: Int32 = 0
        var scratch = [UInt8](repeating: 0, count: 16)
        guard EVP_EncryptFinal_ex(ctx, &scratch, &final) == 1,
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, Int32(tag.count), &tag) == 1
        else { return nil }
        return (ciphertext, Data(tag))
    }

    /// The plaintext, or nil when authentication fails.
    static func open(_ ciphertext: Data, tag: Data, key: Data, nonce: Data, aad: Data) -> Data? {
        guard let ctx = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(ctx) }
        var plaintext = Data(count: ciphertext.count)
        var tagBytes = [UInt8](tag)
        let ok = key.withUnsafeBytes { k in
            nonce.withUnsafeBytes { n in
                EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), nil, nil, nil) == 1
                    && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, Int32(n.count), nil) == 1
                    && EVP_DecryptInit_ex(ctx, nil, nil, bytes(k), bytes(n)) == 1
            }
        }
        guard ok, update(ctx, aad, into: nil, encrypt: false),
            update(ctx, ciphertext, into: &plaintext, encrypt: false),
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, Int32(tagBytes.count), &tagBytes) == 1
        else { return nil }
        var final: Int32 = 0
        var scratch = [UInt8](repeating: 0, count: 16)
        guard EVP_DecryptFinal_ex(ctx, &scratch, &final) == 1 else {
            plaintext.resetBytes(in: 0..<plaintext.count)  // never hand out unauthenticated plaintext
            return nil
        }
        return plaintext
    }

    /// Feeds `input` in chunks; with `output` nil the input is associated data.
    private static func update(
        _ ctx: OpaquePointer, _ input: Data, into output: UnsafeMutablePointer<Data>?,
        encrypt: Bool
    ) -> Bool {
        guard !input.isEmpty else { return true }
        return input.withUnsafeBytes { inRaw -> Bool in
            let inBase = bytes(inRaw)!
            func step(_ out: UnsafeMutablePointer<UInt8>?) -> Bool {
                var offset = 0
                while offset < inRaw.count {
                    let n = min(chunk, inRaw.count - offset)
                    var written: Int32 = 0
                    let rc =
                        encrypt
                        ? EVP_EncryptUpdate(ctx, out.map { $0 + offset }, &written, inBase + offset, Int32(n))
                        : EVP_DecryptUpdate(ctx, out.map { $0 + offset }, &written, inBase + offset, Int32(n))
                    guard rc == 1, out == nil || Int(written) == n else { return false }
                    offset += n
                }
                return true
            }
            guard let output else { return step(nil) }
            return output.pointee.withUnsafeMutableBytes { step($0.bindMemory(to: UInt8.self).baseAddress) }
        }
    }

    private static func bytes(_ raw: UnsafeRawBufferPointer) -> UnsafePointer<UInt8>? {
        raw.bindMemory(to: UInt8.self).baseAddress
    }
}
