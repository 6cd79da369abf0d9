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
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { throw HallmarkCryptoError(.malformedHex, "hex has an odd number of digits") }
        var out = Data(capacity: utf8.count / 2)
        var i = 0
        while i < utf8.count {
            guard let hi = nibble(utf8[i]), let lo = nibble(utf8[i + 1]) else {
                throw HallmarkCryptoError(.malformedHex, "hex contains a non-hex character")
            }
            out.append(hi << 4 | lo)
            i += 2
        }
        if let length, out.count != length {
            throw HallmarkCryptoError(.invalidLength, "expected \(length) bytes of hex, got \(out.count)")
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
