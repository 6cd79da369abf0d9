import Foundation

/// Lowercase hexadecimal encoding with strict, typed-error decoding.
public enum Hex {
    /// Encodes bytes as lowercase hex.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        if let text = bytes.withContiguousStorageIfAvailable({ encode(UnsafeRawBufferPointer($0)) }) { return text }
        return Array(bytes).withUnsafeBytes { encode($0) }
    }

    /// Encodes bytes as lowercase hex. `Data` hands out its bytes at once: through the generic
    /// path its iterator reads them one call at a time (a twentieth of the verifier's CPU went
    /// to hex and that iterator, #55).
    public static func encode(_ data: Data) -> String { data.withUnsafeBytes { encode($0) } }

    /// The text written straight into the string's storage: no table, array or copy per call.
    private static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            @inline(__always) func digit(_ n: UInt8) -> UInt8 { n < 10 ? n &+ 0x30 : n &+ 0x57 }
            for (i, b) in bytes.enumerated() {
                out[2 &* i] = digit(b >> 4)
                out[2 &* i &+ 1] = digit(b & 0x0f)
            }
            return bytes.count * 2
        }
    }

    /// Decodes hex (either case). Throws `malformedHex` on odd length or a non-hex digit,
    /// `invalidLength` when `length` is given and does not match the decoded size.
    public static func decode(_ text: String, length: Int? = nil) throws(HallmarkCryptoError) -> Data {
        var text = text
        let decoded: [UInt8]? = text.withUTF8 { utf8 in
            guard utf8.count % 2 == 0 else { return nil }
            var out = [UInt8](repeating: 0, count: utf8.count / 2)
            for i in out.indices {
                guard let hi = nibble(utf8[2 * i]), let lo = nibble(utf8[2 * i + 1]) else { return nil }
                out[i] = hi << 4 | lo
            }
            return out
        }
        guard let decoded else {
            throw HallmarkCryptoError(
                .malformedHex,
                text.utf8.count % 2 == 0
                    ? "hex contains a non-hex character"
                    : "hex has an odd number of digits")
        }
        if let length, decoded.count != length {
            throw HallmarkCryptoError(.invalidLength, "expected \(length) bytes of hex, got \(decoded.count)")
        }
        return Data(decoded)
    }

    @inline(__always)
    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
