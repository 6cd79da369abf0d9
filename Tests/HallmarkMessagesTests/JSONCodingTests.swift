import Foundation
@testable import HallmarkCore
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// `JSONCoding`'s own encoder and its decoder over parsed values against `JSONEncoder` and
/// `JSONDecoder`: the same bytes, the same values, the same refusals naming the same fields.
@Suite(.timeLimit(.minutes(5)))
struct JSONCodingTests {
    /// `JSONEncoder`'s bytes of a value.
    static func foundation<T: Encodable>(_ value: T) throws -> [UInt8] { Array(try JSONCoding.foundationEncode(value)) }

    /// Both decoders on one document: nil when both refuse it (with the same reason),
    /// otherwise both values, written out by `JSONEncoder`.
    static func decodeBoth<T: HallmarkMessage>(
        like example: T, _ document: JSONValue
    )
        throws -> (ours: Result<[UInt8], JSONCodingError>, theirs: Result<[UInt8], JSONCodingError>)
    {
        func run(_ decode: () throws(JSONCodingError) -> T) -> Result<[UInt8], JSONCodingError> {
            do throws(JSONCodingError) {
                return .success(Array(try JSONCoding.foundationEncode(try decode())))
            } catch {
                return .failure(error)
            }
        }
        let bytes = JSONWriter.write(document)
        return (
            run { () throws(JSONCodingError) in try JSONCoding.decode(T.self, from: document) },
            run { () throws(JSONCodingError) in try JSONCoding.decode(T.self, from: bytes) }
        )
    }

    @Test func everyExampleIsWrittenAsJSONEncoderWritesIt() throws {
        let examples = try MessageExamples.all()
        #expect(examples.count > 60)
        for example in examples {
            #expect(
                try JSONCoding.encode(example.message) == Self.foundation(example.message), "\(example.schema) (\(example.what))")
        }
    }

    /// ``JSONCoding/value(of:)`` is the tree ``JSONCoding/encode(_:)`` writes: the writer gives
    /// the same bytes, for every example, a key written twice and a floating-point value.
    /// A token result with its header, as its schema says (known answer: the header's encoder
    /// writes its ids and time as strings directly, not as nested values).
    @Test func aTokenResultIsWrittenAsItsSchemaSays() throws {
        let id = try #require(MessageID("0b4a8a0e-4c1c-4d5e-9a3f-2b7c8d9e0f10"))
        let request = try #require(MessageID("d3b07384-d113-4ec4-8a8b-9d6f0f0e1a2b"))
        let at = try #require(Timestamp("2026-12-03T12:00:00.123Z"))
        func bytes(_ reason: ValidationReason?, correlation: String?) throws -> String {
            let header = EnvelopeHeader(
                schema: TokenResult.schemaName, id: id, producedAt: at, correlationID: correlation, requestID: request)
            return String(decoding: try JSONCoding.encode(Message(TokenResult(reason: reason), header: header)), as: UTF8.self)
        }
        #expect(
            try bytes(.replayedToken, correlation: "c-1")
                == #"{"correlation_id":"c-1","id":"0b4a8a0e-4c1c-4d5e-9a3f-2b7c8d9e0f10","produced_at":"2026-12-03T12:00:00.123Z","#
                + #""reason":"replayed_token","request_id":"d3b07384-d113-4ec4-8a8b-9d6f0f0e1a2b","schema":"hallmark.token.result.v1","valid":false}"#
        )
        #expect(
            try bytes(nil, correlation: nil)
                == #"{"id":"0b4a8a0e-4c1c-4d5e-9a3f-2b7c8d9e0f10","produced_at":"2026-12-03T12:00:00.123Z","#
                + #""request_id":"d3b07384-d113-4ec4-8a8b-9d6f0f0e1a2b","schema":"hallmark.token.result.v1","valid":true}"#)
    }

    /// The authority's verdicts, written directly, are the encoder's bytes: every reason and
    /// PASS, with and without a correlation id (one that needs escaping) and a reply topic.
    @Test(arguments: [nil] + ValidationReason.allCases.map(Optional.some))
    func tokenResultBytesEqualJSONCoding(_ reason: ValidationReason?) throws {
        let headers = [
            EnvelopeHeader.answer(TokenResult.schemaName, id: .random(), to: .random(), correlationID: nil),
            EnvelopeHeader.answer(
                TokenResult.schemaName, id: .random(), to: .random(), correlationID: "a\"b\\c/d\u{7f}\u{1}é"),
            EnvelopeHeader(schema: TokenResult.schemaName, id: .random(), replyTo: "birthmark.token.results.b"),
        ]
        for header in headers {
            let result = Message(TokenResult(reason: reason), header: header)
            #expect(result.jsonBytes == (try JSONCoding.encode(result)))
        }
    }

    @Test func everyExampleAsAValueIsWrittenAsItsBytes() throws {
        for example in try MessageExamples.all() {
            let bytes = try JSONCoding.encode(example.message)
            #expect(JSONWriter.write(try JSONCoding.value(of: example.message)) == bytes, "\(example.schema) (\(example.what))")
            #expect(try JSONCoding.value(of: example.message) == JSONReader.parse(bytes))
        }
        struct Mixed: Codable { var a: Double; var c: Int }
        #expect(JSONWriter.write(try JSONCoding.value(of: Mixed(a: 0.1, c: 3))) == (try JSONCoding.encode(Mixed(a: 0.1, c: 3))))
        #expect(try JSONCoding.value(of: TwiceWritten()) == JSONValue.object(["a": .string("first"), "b": .number("2")]))
    }

    @Test func everyExampleDecodesFromItsParsedValueAsFromItsBytes() throws {
        for example in try MessageExamples.all() {
            let (ours, theirs) = try Self.decodeBoth(like: example.message, try example.json())
            #expect(try ours.get() == theirs.get(), "\(example.schema) (\(example.what))")
            #expect(try ours.get() == example.bytes())
        }
    }

    /// Every document derived from the examples by breaking one schema rule: both decoders
    /// take it with the same value or both refuse it, naming the same field.
    @Test func derivedDocumentsAreTakenOrRefusedAlike() throws {
        var compared = 0, refused = 0
        for example in try MessageExamples.all() {
            let schema = try #require(MessageSchemas.bundled(example.schema))
            for c in SchemaViolations.derive(schema: schema, example: try example.json()) {
                let (ours, theirs) = try Self.decodeBoth(like: example.message, c.document)
                switch (ours, theirs) {
                case (.success(let a), .success(let b)):
                    #expect(a == b, "\(example.schema) \(c.rule): different values")
                case (.failure(let a), .failure(let b)):
                    refused += 1
                    // JSONDecoder reports a number that does not fit at the root; ours at its field.
                    if b.path != "(root)" { #expect(a == b, "\(example.schema) \(c.rule): \(a) vs \(b)") }
                default:
                    Issue.record("\(example.schema) \(c.rule): ours \(ours), JSONDecoder \(theirs)")
                }
                compared += 1
            }
        }
        #expect(compared > 1000)
        #expect(refused > 100)
    }

    struct Numbers: Codable, Equatable {
        var int: Int
        var small: UInt8?
        var big: UInt64?
        var list: [Int]?
    }

    @Test(arguments: [
        (#"{"int":1.0}"#, "1"), (#"{"int":1e2}"#, "100"), (#"{"int":-0}"#, "0"), (#"{"int":1,"small":255}"#, "1"),
        (#"{"int":1,"big":18446744073709551615}"#, "1"),
        (#"{"int":1.5}"#, "invalid value at int"), (#"{"int":9223372036854775808}"#, "invalid value at int"),
        (#"{"int":1,"small":256}"#, "invalid value at small"), (#"{"int":1,"big":-1}"#, "invalid value at big"),
        (#"{"int":null}"#, "null at int"), (#"{"int":"1"}"#, "wrong type at int"), (#"{}"#, "missing field at int"),
        (#"{"int":1,"list":[1,"2"]}"#, "wrong type at list.[1]"), (#"{"int":1,"list":{}}"#, "wrong type at list"),
        (#"[]"#, "wrong type at (root)"), (#"{"int":1,"unknown":[{}]}"#, "1"),
    ])
    func numbersAndRefusals(document: String, expected: String) throws {
        let value = try JSONReader.parse(Array(document.utf8))
        do {
            #expect(String(try JSONCoding.decode(Numbers.self, from: value).int) == expected)
        } catch {
            #expect(error.description == expected)
        }
    }

    /// Containers nested by hand, a super encoder, `Data`, `URL`, nil members and keys outside
    /// ASCII: the same bytes, and read back to the same value.
    struct Handmade: Codable, Equatable {
        var data: Data
        var url: URL
        var names: [String: Int]
        var missing: String?
        var pairs: [[String?]]

        enum CodingKeys: String, CodingKey { case data, url, names, missing, pairs, inner, base }
        enum Inner: String, CodingKey { case deep }

        init(data: Data, url: URL, names: [String: Int], missing: String?, pairs: [[String?]]) {
            (self.data, self.url, self.names, self.missing, self.pairs) = (data, url, names, missing, pairs)
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            data = try c.decode(Data.self, forKey: .data)
            url = try c.decode(URL.self, forKey: .url)
            names = try c.decode([String: Int].self, forKey: .names)
            missing = try c.decodeIfPresent(String.self, forKey: .missing)
            var outer = try c.nestedUnkeyedContainer(forKey: .pairs)
            var pairs: [[String?]] = []
            while !outer.isAtEnd {
                var inner = try outer.nestedUnkeyedContainer()
                var pair: [String?] = []
                while !inner.isAtEnd { pair.append(try inner.decodeNil() ? nil : try inner.decode(String.self)) }
                pairs.append(pair)
            }
            self.pairs = pairs
            #expect(try c.nestedContainer(keyedBy: Inner.self, forKey: .inner).decode(Bool.self, forKey: .deep))
            #expect(try c.superDecoder(forKey: .base).singleValueContainer().decode(String.self) == "base")
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(data, forKey: .data)
            try c.encode(url, forKey: .url)
            try c.encode(names, forKey: .names)
            try c.encodeIfPresent(missing, forKey: .missing)
            var outer = c.nestedUnkeyedContainer(forKey: .pairs)
            for pair in pairs {
                var inner = outer.nestedUnkeyedContainer()
                for s in pair { if let s { try inner.encode(s) } else { try inner.encodeNil() } }
            }
            var nested = c.nestedContainer(keyedBy: Inner.self, forKey: .inner)
            try nested.encode(true, forKey: .deep)
            var base = c.superEncoder(forKey: .base).singleValueContainer()
            try base.encode("base")
        }
    }

    @Test func handmadeContainersAreWrittenAndReadAlike() throws {
        let value = Handmade(
            data: Data([0, 1, 2, 250, 251, 252]), url: try #require(URL(string: "https://example.com/a?b=c")),
            names: ["b": 1, "B": 2, "é": 3, "a10": 4, "a9": 5, "_x": 6, "tab\t\"q\"": 7],
            missing: nil, pairs: [["a", nil], [], ["\u{1}/\u{2028}"]])
        let ours = try JSONCoding.encode(value)
        #expect(ours == (try Self.foundation(value)))
        #expect(try JSONCoding.decode(Handmade.self, from: try JSONReader.parse(ours)) == value)
    }

    /// A key written twice keeps its last value, as in `JSONEncoder`.
    @Test func aKeyWrittenTwiceKeepsItsLastValue() throws {
        #expect(try JSONCoding.encode(TwiceWritten()) == (try Self.foundation(TwiceWritten())))
        #expect(String(decoding: try JSONCoding.encode(TwiceWritten()), as: UTF8.self) == #"{"a":"first","b":2}"#)
    }

    struct TwiceWritten: Encodable {
        enum Keys: String, CodingKey { case a, b }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(1, forKey: .b)
            try c.encode("first", forKey: .a)
            try c.encode(2, forKey: .b)
        }
    }

    /// Floating-point numbers are left to `JSONEncoder`, whole messages included.
    @Test func floatingPointIsWrittenByJSONEncoder() throws {
        struct Mixed: Codable { var a: Double; var b: [Float]; var c: Int }
        let value = Mixed(a: 1e20, b: [0.1, 1.5e-7], c: 3)
        #expect(try JSONCoding.encode(value) == (try Self.foundation(value)))
        #expect(throws: JSONValueEncoder.Unsupported.self) { try JSONValueEncoder.encode(value) }
        let back = try JSONCoding.decode(Mixed.self, from: try JSONReader.parse(try JSONCoding.encode(value)))
        #expect(back.a == 1e20 && back.b == [0.1, 1.5e-7] && back.c == 3)
    }
}
