import Foundation

/// Lowercase hexadecimal encoding with strict, typed-error decoding.
public enum Hex {
    /// Encodes bytes as lowercase hex.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
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
