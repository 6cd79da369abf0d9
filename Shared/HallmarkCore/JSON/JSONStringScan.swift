/// Finds the next byte of a JSON string that is not copied as it is: a quote, a backslash or
/// a control character. Eight bytes at a time, since request bodies are megabytes of base64
/// that hold none of them.
enum JSONStringScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The offset of the first byte in `bytes[from...]` that is `"`, `\` or below 0x20, or
    /// `bytes.count` when there is none.
    @inline(__always)
    static func firstSpecial(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        firstSpecialAndASCII(in: bytes, from: start).end  // inlined: the unused ASCII check folds away
    }

    /// ``firstSpecial(in:from:)``, and whether every byte before it is ASCII: such a string
    /// needs no UTF-8 validation (the generic `String(validating:as:)` instantiates type
    /// metadata on each call, a few percent of a stage's intake).
    @inline(__always)
    static func firstSpecialAndASCII(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (end: Int, ascii: Bool) {
        guard let base = bytes.baseAddress else { return (start, true) }
        let n = bytes.count
        var i = start
        var high: UInt64 = 0
        let raw = UnsafeRawPointer(base)
        while i &+ 8 <= n {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            if hasSpecial(word) { break }
            high |= word & highs
            i &+= 8
        }
        while i < n, !isSpecial(base[i]) {
            high |= UInt64(base[i] & 0x80)
            i &+= 1
        }
        return (i, high == 0)
    }

    @inline(__always)
    static func isSpecial(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x22 || byte == 0x5C }

    /// Whether a byte of `word` is special: the classic "has a zero byte" and "has a byte less
    /// than n" tests, exact as yes-or-no answers (a byte at or above 0x80 never sets one).
    @inline(__always)
    static func hasSpecial(_ word: UInt64) -> Bool {
        let control = (word &- ones &* 0x20) & ~word & highs
        let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
        let zeroQuote = (quote &- ones) & ~quote & highs
        let zeroBackslash = (backslash &- ones) & ~backslash & highs
        return control | zeroQuote | zeroBackslash != 0
    }
}
