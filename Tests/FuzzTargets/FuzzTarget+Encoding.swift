import Foundation
import HallmarkCrypto

extension FuzzTarget {
    /// `Hex` and `Base64` against small reference decoders written from RFC 4648.
    static let encoding = FuzzTarget(
        name: "encoding", summary: "Hex and Base64 against RFC 4648 reference decoders; encode/decode round trips",
        run: EncodingDifferential.run, seeds: EncodingDifferential.seeds, dictionary: EncodingDifferential.dictionary)
}

enum EncodingDifferential {
    static func run(_ bytes: [UInt8]) throws(FuzzFinding) {
        guard let first = bytes.first else { return }
        let rest = Array(bytes.dropFirst())
        let text = String(decoding: rest, as: UTF8.self)
        let length: Int? = first & 0x80 == 0 ? nil : Int(first & 0x3F)
        // Text that is not UTF-8 reaches the decoders as U+FFFD; the references see the same.
        let utf8 = Array(text.utf8)

        let hex = try? Hex.decode(text, length: length)
        let hexReference = referenceHex(utf8).flatMap { length == nil || $0.count == length ? $0 : nil }
        try require(hex.map(Array.init) == hexReference, "Hex.decode disagrees with the reference")
        let hexText = Hex.encode(rest)
        try require(
            hexText.utf8.count == 2 * rest.count && hexText == hexText.lowercased(),
            "Hex.encode is not lower-case, two digits a byte")
        try require((try? Hex.decode(hexText)).map(Array.init) == rest, "Hex does not round-trip")

        let b64 = try? Base64.decode(text, length: length)
        let b64Reference = referenceBase64(utf8).flatMap { length == nil || $0.count == length ? $0 : nil }
        try require(b64.map(Array.init) == b64Reference, "Base64.decode disagrees with the reference")
        let b64Text = Base64.encode(rest)
        try require((try? Base64.decode(b64Text)).map(Array.init) == rest, "Base64 does not round-trip")
    }

    static func referenceHex(_ t: [UInt8]) -> [UInt8]? {
        guard t.count % 2 == 0 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            if let i = Array("0123456789abcdef".utf8).firstIndex(of: c) { return UInt8(i) }
            if let i = Array("ABCDEF".utf8).firstIndex(of: c) { return UInt8(i + 10) }
            return nil
        }
        var out: [UInt8] = []
        for i in stride(from: 0, to: t.count, by: 2) {
            guard let hi = nibble(t[i]), let lo = nibble(t[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
        }
        return out
    }

    /// Canonical padded base64: quads of the alphabet, `=` only at the end, and the unused
    /// low bits of the last symbol zero (so each byte string has exactly one encoding).
    static func referenceBase64(_ t: [UInt8]) -> [UInt8]? {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        guard t.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        for q in stride(from: 0, to: t.count, by: 4) {
            let quad = t[q..<q + 4]
            let pad = quad.reversed().prefix { $0 == UInt8(ascii: "=") }.count
            guard pad <= 2, q + 4 == t.count || pad == 0 else { return nil }
            var v: UInt32 = 0
            for c in quad.prefix(4 - pad) {
                guard let i = alphabet.firstIndex(of: c) else { return nil }
                v = v << 6 | UInt32(i)
            }
            v <<= UInt32(6 * pad)
            let decoded = [UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
            guard decoded.suffix(pad).allSatisfy({ $0 == 0 }) else { return nil }
            out += decoded.prefix(3 - pad)
        }
        return out
    }

    static func seeds() throws -> [[UInt8]] {
        [
            [0x00] + Array("00ff7Fa0".utf8), [0x80 | 3] + Array("AQID".utf8), [0x00] + Array("YWJjZA==".utf8),
            [0x00] + Array("YWJjZGU=".utf8), [0x80 | 32] + Array(Base64.encode(Data(repeating: 7, count: 32)).utf8),
        ]
    }

    static let dictionary = ["=", "==", "+", "/", "-", "_", "0x", "ff", "FF", "AAAA", "\r\n", " "]
}
