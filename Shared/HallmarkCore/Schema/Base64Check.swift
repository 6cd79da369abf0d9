/// Canonical padded base64: length a multiple of 4, `=` only as padding, and the unused bits
/// before the padding zero (so one byte string has exactly one encoding).
enum Base64Check {
    static func isCanonical(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { b in
            let n = b.count
            guard n % 4 == 0 else { return false }
            guard n > 0, let p = b.baseAddress else { return true }
            var pad = 0
            // `=` only at the end: a second one only before a first (`ww=w` is not padding).
            if p[n - 1] == 0x3D { pad = p[n - 2] == 0x3D ? 2 : 1 }
            // A plain loop over a table: this runs over whole bodies, debug builds included.
            let end = n - pad
            return table.withUnsafeBufferPointer { t in
                let values = t.baseAddress!
                var i = 0
                var bad: UInt8 = 0
                while i < end {
                    bad |= values[Int(p[i])]
                    i &+= 1
                }
                guard bad & 0x80 == 0 else { return false }
                guard pad > 0 else { return true }
                let last = values[Int(p[end - 1])]
                return pad == 1 ? last & 0x03 == 0 : last & 0x0F == 0
            }
        }
    }

    /// The 6-bit value of each base64 character; 0x80 for every other byte.
    static let table: [UInt8] = (0...255).map { value(UInt8($0)) ?? 0x80 }

    static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x41...0x5A: return c - 0x41
        case 0x61...0x7A: return c - 0x61 + 26
        case 0x30...0x39: return c - 0x30 + 52
        case 0x2B: return 62
        case 0x2F: return 63
        default: return nil
        }
    }
}
