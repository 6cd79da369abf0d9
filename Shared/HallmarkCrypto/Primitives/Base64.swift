import Foundation

/// Standard base64 with `=` padding and no line breaks, with typed-error decoding.
public enum Base64 {
    /// Encodes bytes as padded standard base64.
    public static func encode(_ bytes: some DataProtocol) -> String {
        Data(bytes).base64EncodedString()
    }

    /// Decodes padded standard base64. Throws `malformedBase64` on any other input and
    /// `invalidLength` when `length` is given and does not match.
    public static func decode(_ text: String, length: Int? = nil) throws(HallmarkCryptoError) -> Data {
        // Foundation is lenient about some forms; insist on the canonical shape first.
        let utf8 = text.utf8
        guard utf8.count % 4 == 0, utf8.allSatisfy(isAlphabet),
            let data = Data(base64Encoded: text), data.base64EncodedString() == text
        else {
            throw HallmarkCryptoError(.malformedBase64, "not canonical padded base64")
        }
        if let length, data.count != length {
            throw HallmarkCryptoError(.invalidLength, "expected \(length) bytes of base64, got \(data.count)")
        }
        return data
    }

    private static func isAlphabet(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="):
            true
        default: false
        }
    }
}
