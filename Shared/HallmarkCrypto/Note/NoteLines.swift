import Foundation

/// The line forms the C2SP texts built around a note share (tlog-proof's `index`,
/// tlog-witness's `old`, their proof hashes), read strictly.
enum NoteLines {
    /// `<keyword> <decimal>`, without leading zeroes; `malformed_note` otherwise.
    static func number(_ line: Substring?, keyword: String) throws(HallmarkCryptoError) -> UInt64 {
        let prefix = keyword + " "
        guard let line, line.hasPrefix(prefix), let value = UInt64(line.dropFirst(prefix.count)),
            String(value) == line.dropFirst(prefix.count)
        else {
            throw HallmarkCryptoError.malformedNote("the \(keyword) line is '\(keyword) <decimal>'")
        }
        return value
    }

    /// At most 63 lines, each the base64 of a 32-byte hash (an RFC 6962 proof).
    static func hashes(_ lines: some Collection<Substring>) throws(HallmarkCryptoError) -> [Data] {
        guard lines.count <= 63 else { throw HallmarkCryptoError.malformedNote("a proof has at most 63 hashes") }
        var hashes: [Data] = []
        for line in lines {
            guard let hash = try? Base64.decode(String(line), length: 32) else {
                throw HallmarkCryptoError.malformedNote("each proof line is the base64 of a 32-byte hash")
            }
            hashes.append(hash)
        }
        return hashes
    }
}
