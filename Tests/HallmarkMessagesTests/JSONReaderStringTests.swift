import HallmarkCore
import Testing

/// Strings without escapes take a fast path: found eight bytes at a time, and when every byte
/// is ASCII, decoded without a second UTF-8 validation. Wherever a non-ASCII byte falls (in a
/// full word or in the tail), valid UTF-8 must still be read and invalid UTF-8 refused.
@Suite(.timeLimit(.minutes(1)))
struct JSONReaderStringTests {
    static let inserts: [[UInt8]] = [
        Array("é".utf8), Array("€".utf8), Array("😀".utf8),
    ]
    static let invalid: [[UInt8]] = [
        [0x80],  // a continuation byte alone
        [0xC3, 0x28],  // a lead byte without its continuation
        [0xE2, 0x82],  // truncated
        [0xFF],  // never valid
        [0xC0, 0xAF],  // overlong "/"
        [0xED, 0xA0, 0x80],  // a surrogate
    ]

    static func document(_ content: [UInt8]) -> [UInt8] { Array(#"{"s":""#.utf8) + content + Array(#""}"#.utf8) }

    static func string(_ document: [UInt8]) throws -> String? {
        guard case .object(let members) = try JSONReader.parse(document), case .string(let s)? = members["s"] else {
            return nil
        }
        return s
    }

    @Test func asciiStringsOfEveryLengthAroundAWordAreReadAsTheyAre() throws {
        for length in 0...40 {
            let text = String(repeating: "a", count: length)
            #expect(try Self.string(Self.document(Array(text.utf8))) == text)
        }
    }

    @Test func aNonASCIICharacterAnywhereIsValidated() throws {
        for insert in Self.inserts {
            for length in 0...24 {
                for position in 0...length {
                    let text =
                        String(repeating: "a", count: position) + String(decoding: insert, as: UTF8.self)
                        + String(repeating: "b", count: length - position)
                    #expect(try Self.string(Self.document(Array(text.utf8))) == text)
                }
            }
        }
    }

    @Test func invalidUTF8AnywhereIsRefused() {
        for bad in Self.invalid {
            for length in 0...24 {
                for position in 0...length {
                    let content =
                        [UInt8](repeating: 0x61, count: position) + bad + [UInt8](repeating: 0x62, count: length - position)
                    #expect(throws: JSONReadError.self, "\(bad) at \(position) of \(length)") {
                        try Self.string(Self.document(content))
                    }
                }
            }
        }
    }
}
