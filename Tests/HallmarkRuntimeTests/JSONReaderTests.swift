import Foundation
@testable import HallmarkCore
import HallmarkMessages
import Testing

/// The strict reader: the same values as `JSONSerialization` on valid documents, refusals
/// (with an offset, never a crash) on everything RFC 8259 forbids, and the writer's output
/// byte-for-byte equal to `JSONEncoder` with Hallmark's settings.
@Suite(.timeLimit(.minutes(2)))
struct JSONReaderTests {
    /// JSONValue → the Foundation object JSONSerialization would give.
    static func foundation(_ v: JSONValue) -> NSObject {
        switch v {
        case .null: return NSNull()
        case .bool(let b): return NSNumber(value: b)
        case .number(let t): return (Int(t).map { NSNumber(value: $0) } ?? NSNumber(value: Double(t)!))
        case .string(let s): return s as NSString
        case .array(let a): return a.map(foundation) as NSArray
        case .object(let o): return o.mapValues(foundation) as NSDictionary
        }
    }

    @Test(arguments: [
        #"{"a":1,"b":[true,false,null],"c":{"d":"e"}}"#,
        #"  [ 1 , -2.5e3 , 0 , -0 , 1E+2 , 12345678901234 ]  "#,
        #""plain""#,
        #"{"esc":"q\" b\\ s\/ \b\f\n\r\t \u00e9 \ud83d\ude00 é 😀"}"#,
        #"{}"#, #"[]"#, #"[[[[]]]]"#, "\t\n\r 42 ",
        #"{"schema":"hallmark.token.request.v1","id":"0b7b6a7c-96a3-4a4e-9c2b-5d6f3c2a1b0e","n":[1,2,3]}"#,
    ])
    func readsWhatJSONSerializationReads(_ text: String) throws {
        let ours = try JSONReader.parse(Array(text.utf8))
        let theirs = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) as! NSObject
        #expect(Self.foundation(ours).isEqual(theirs), "\(text)")
    }

    /// A raw U+FEFF opening a string or a name is a character (RFC 8259), not a byte order mark.
    /// Foundation drops it (found by the `json` fuzz target); the reader must not.
    @Test func keepsALeadingByteOrderMarkInsideStrings() throws {
        let text = "{\"\u{FEFF}a\":\"\u{FEFF}\",\"a\":[\"\u{FEFF}x\"]}"
        let v = try JSONReader.parse(Array(text.utf8))
        #expect(v["\u{FEFF}a"]?.string == "\u{FEFF}")
        #expect(v["a"] == .array([.string("\u{FEFF}x")]))
        #expect(v.object?.count == 2)
    }

    @Test func decodesEscapes() throws {
        let v = try JSONReader.parse(Array(#"{"s":"a\u0041\n\ud83d\ude00\/"}"#.utf8))
        #expect(v["s"]?.string == "aA\n😀/")
    }

    @Test(arguments: [
        "", " ", "{", "}", "[1,]", #"{"a":1,}"#, #"{"a" 1}"#, #"{a:1}"#, "'x'", "01", "1.", ".5", "-", "1e", "+1",
        "NaN", "Infinity", "tru", "nul", "[1] 2", #"{"a":1}x"#, "\"unterminated", "\"tab\there\"",
        #""\x""#, #""\u12""#, #""\ud800""#, #""\udc00x""#, #""\ud800\u0041""#, "/* c */ 1",
        #"{"a":1,"a":2}"#,
        // UTF-8 only (RFC 8259): no byte order mark, no NUL, which Foundation takes as UTF-16/32.
        "\u{FEFF}{}", "\0\0\0" + "4", "[\0" + "1]", "1\0", "\"a\0\"",
    ])
    func refusesInvalidDocuments(_ text: String) {
        #expect(throws: JSONReadError.self, "\(text)") { try JSONReader.parse(Array(text.utf8)) }
    }

    @Test func refusesInvalidUTF8AndDeepNesting() {
        #expect(throws: JSONReadError.self) { try JSONReader.parse([0x22, 0xC3, 0x28, 0x22]) }
        #expect(throws: JSONReadError.self) { try JSONReader.parse([0x22, 0xFF, 0x22]) }
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONReadError.self) { try JSONReader.parse(Array(deep.utf8)) }
        let ok = String(repeating: "[", count: JSONReader.maxDepth) + String(repeating: "]", count: JSONReader.maxDepth)
        #expect((try? JSONReader.parse(Array(ok.utf8))) != nil)
    }

    @Test func integersAreOnlyIntegers() throws {
        let v = try JSONReader.parse(Array(#"[7,-3,4.0,1e2,true,"7",9223372036854775808]"#.utf8))
        #expect(v.array?.map(\.integer) == [7, -3, nil, nil, nil, nil, nil])
    }

    @Test func errorsNameAnOffsetNotTheInput() {
        do {
            _ = try JSONReader.parse(Array(#"{"secret":"s3cr3t",}"#.utf8))
            Issue.record("accepted")
        } catch {
            #expect(error.offset == 19)  // the "}" where a member name belongs
            #expect(!"\(error)".contains("s3cr3t"))
        }
    }

    struct Sample: Encodable {
        var schema = "x.v1"
        var id: String
        var produced_at = "2026-01-01T00:00:00.000Z"
        var valid: Bool
        var reason: String?
        var path = "a/b \"q\" \\ \n\u{01}é"
        var n = [1, 2]
    }

    @Test func writerMatchesJSONEncoderWithHallmarkSettings() throws {
        for sample in [Sample(id: "A", valid: true, reason: nil), Sample(id: "b_c", valid: false, reason: "why")] {
            var members: [String: JSONValue] = [
                "schema": .string(sample.schema), "id": .string(sample.id), "produced_at": .string(sample.produced_at),
                "valid": .bool(sample.valid), "path": .string(sample.path), "n": .array([.number("1"), .number("2")]),
            ]
            if let r = sample.reason { members["reason"] = .string(r) }
            #expect(JSONWriter.write(.object(members)) == (try JSONCoding.encode(sample)))
            #expect(try JSONReader.parse(JSONWriter.write(.object(members))) == .object(members))
        }
    }
}

/// The eight-bytes-at-a-time scan finds exactly the bytes the byte-by-byte rule names, at every
/// offset of a word, so no quote, backslash or control character is ever copied unescaped.
@Suite(.timeLimit(.minutes(1)))
struct JSONStringScanTests {
    @Test func findsEveryByteValueAtEveryOffset() {
        for length in [1, 7, 8, 9, 17, 31] {
            for offset in 0..<length {
                for value in 0...255 {
                    var bytes = [UInt8](repeating: UInt8(ascii: "A"), count: length)
                    bytes[offset] = UInt8(value)
                    // A non-ASCII neighbour and a byte just above each range must not hide it.
                    if offset > 0 { bytes[offset - 1] = 0xFF }
                    if offset + 1 < length { bytes[offset + 1] = 0x20 }
                    let special = value < 0x20 || value == 0x22 || value == 0x5C
                    let found = bytes.withUnsafeBufferPointer { JSONStringScan.firstSpecial(in: $0, from: 0) }
                    #expect(found == (special ? offset : length), "byte \(value) at \(offset) of \(length)")
                }
            }
        }
    }

    @Test func writesAndReadsBackStringsWithSpecialsAnywhere() throws {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["\"", "\\", "\n", "\u{1}", "\u{1F}", "é", "\u{1F600}", "/", "abcdefgh", " ", "\u{7F}"]
        for _ in 0..<500 {
            let text = (0..<Int.random(in: 0...40, using: &generator)).map { _ in pieces.randomElement()! }.joined()
            let written = JSONWriter.write(.array([.string(text)]))
            #expect(try JSONReader.parse(written) == .array([.string(text)]))
            #expect(!written.contains(where: { $0 < 0x20 }))
        }
    }
}
