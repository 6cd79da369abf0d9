import Foundation

extension UUID {
    /// Reads the 36-character form `8-4-4-4-12` of hex digits (either case) and nothing else:
    /// the schemas' `uuid` format. `UUID(uuidString:)` parses with `sscanf`, which costs
    /// every message's envelope id and inbox row a few microseconds and also takes some
    /// malformed forms (short fields, signs).
    public init?(text: String) {
        var text = text
        guard let bytes = text.withUTF8(Self.parse) else { return nil }
        self.init(uuid: bytes)
    }

    private static func parse(_ b: UnsafeBufferPointer<UInt8>) -> uuid_t? {
        guard b.count == 36, b[8] == 0x2D, b[13] == 0x2D, b[18] == 0x2D, b[23] == 0x2D else { return nil }
        var out: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let ok = withUnsafeMutableBytes(of: &out) { out -> Bool in
            var p = 0
            for i in 0..<16 {
                if p == 8 || p == 13 || p == 18 || p == 23 { p += 1 }
                guard let high = nibble(b[p]), let low = nibble(b[p + 1]) else { return false }
                out[i] = high << 4 | low
                p += 2
            }
            return true
        }
        return ok ? out : nil
    }

    /// The lowercase 36-character form, as Hallmark writes every id (`uuidString` is upper
    /// case and formats with `snprintf`).
    public var lowercasedText: String {
        let digits: StaticString = "0123456789abcdef"
        return withUnsafeBytes(of: uuid) { raw in
            String(unsafeUninitializedCapacity: 36) { out in
                var o = 0
                for (i, byte) in raw.enumerated() {
                    if i == 4 || i == 6 || i == 8 || i == 10 {
                        out[o] = 0x2D
                        o += 1
                    }
                    out[o] = digits.utf8Start[Int(byte >> 4)]
                    out[o + 1] = digits.utf8Start[Int(byte & 0x0F)]
                    o += 2
                }
                return o
            }
        }
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x61...0x66: c - 0x61 + 10
        case 0x41...0x46: c - 0x41 + 10
        default: nil
        }
    }
}
