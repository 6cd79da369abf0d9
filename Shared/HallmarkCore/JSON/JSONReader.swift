/// A strict RFC 8259 JSON reader over bytes, several times faster than `JSONSerialization`
/// or `JSONDecoder` on small messages (it is on every message's hot path).
///
/// Strict where a lenient reader would hide ambiguity: one top-level value and nothing after
/// it, UTF-8 only, no duplicate object keys (different readers keep different duplicates),
/// no lone surrogates, nesting at most ``maxDepth`` deep (deeper input is refused, never a
/// stack overflow).
public enum JSONReader {
    /// The deepest nesting of arrays and objects accepted.
    public static let maxDepth = 64

    /// Parses one JSON document.
    /// - Throws: ``JSONReadError`` with the byte offset and what was wrong (never the input).
    public static func parse(_ bytes: [UInt8]) throws(JSONReadError) -> JSONValue {
        let result: Result<JSONValue, JSONReadError> = bytes.withUnsafeBufferPointer { buffer in
            var parser = Parser(bytes: buffer)
            do throws(JSONReadError) {
                parser.skipWhitespace()
                let value = try parser.value(depth: 0)
                parser.skipWhitespace()
                guard parser.index == buffer.count else { throw parser.failure("unexpected data after the value") }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

/// Why bytes are not JSON: an offset and a fixed reason, never input bytes.
public struct JSONReadError: Error, Sendable, CustomStringConvertible {
    public let offset: Int
    public let reason: String
    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    func failure(_ reason: String) -> JSONReadError { JSONReadError(offset: index, reason: reason) }

    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func expect(_ byte: UInt8, _ what: String) throws(JSONReadError) {
        guard current == byte else { throw failure("expected \(what)") }
        index += 1
    }

    mutating func value(depth: Int) throws(JSONReadError) -> JSONValue {
        guard let byte = current else { throw failure("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw failure("unexpected character")
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONReadError) {
        let n = word.utf8CodeUnitCount
        guard bytes.count - index >= n else { throw failure("unexpected end of input") }
        for k in 0..<n where bytes[index + k] != word.utf8Start[k] { throw failure("unknown literal") }
        index += n
    }

    mutating func object(depth: Int) throws(JSONReadError) -> JSONValue {
        guard depth <= JSONReader.maxDepth else { throw failure("nested too deeply") }
        index += 1
        var members: [String: JSONValue] = [:]
        members.reserveCapacity(8)
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            guard current == UInt8(ascii: "\"") else { throw failure("expected a member name") }
            let keyOffset = index
            let key = try string()
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "':'")
            skipWhitespace()
            let member = try value(depth: depth)
            guard members.updateValue(member, forKey: key) == nil else {
                throw JSONReadError(offset: keyOffset, reason: "duplicate member name")
            }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case UInt8(ascii: "}"):
                index += 1
                return .object(members)
            default: throw failure("expected ',' or '}'")
            }
        }
    }

    mutating func array(depth: Int) throws(JSONReadError) -> JSONValue {
        guard depth <= JSONReader.maxDepth else { throw failure("nested too deeply") }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            elements.append(try value(depth: depth))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            default: throw failure("expected ',' or ']'")
            }
        }
    }

    mutating func number() throws(JSONReadError) -> String {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, (0x30...0x39).contains(first) else { throw failure("expected a digit") }
        index += 1
        if first != 0x30 { skipDigits() }
        if current == UInt8(ascii: ".") {
            index += 1
            guard skipDigits() > 0 else { throw failure("expected a digit after '.'") }
        }
        if let e = current, e | 0x20 == UInt8(ascii: "e") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard skipDigits() > 0 else { throw failure("expected a digit in the exponent") }
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    @discardableResult
    mutating func skipDigits() -> Int {
        let start = index
        while let d = current, (0x30...0x39).contains(d) { index += 1 }
        return index - start
    }

    mutating func string() throws(JSONReadError) -> String {
        index += 1  // the opening quote
        let start = index
        // Fast path: no escapes, found eight bytes at a time.
        let (end, ascii) = JSONStringScan.firstSpecialAndASCII(in: bytes, from: index)
        index = end
        guard index < bytes.count else { throw failure("unterminated string") }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            let raw = UnsafeBufferPointer(rebasing: bytes[start..<index])
            let text = ascii ? String(decoding: raw, as: UTF8.self) : String(validating: raw, as: UTF8.self)
            guard let text else { throw JSONReadError(offset: start, reason: "invalid UTF-8 in a string") }
            index += 1
            return text
        case UInt8(ascii: "\\"): return try escapedString(from: start)
        default: throw failure("control character in a string")
        }
    }

    mutating func escapedString(from start: Int) throws(JSONReadError) -> String {
        var out = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let c = bytes[index]
            switch c {
            case UInt8(ascii: "\""):
                guard let text = String(validating: out, as: UTF8.self) else {
                    throw JSONReadError(offset: start, reason: "invalid UTF-8 in a string")
                }
                index += 1
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard let e = current else { throw failure("unterminated string") }
                index += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"): try appendUnicodeEscape(to: &out)
                default: throw failure("unknown escape")
                }
            default:
                if c < 0x20 { throw failure("control character in a string") }
                out.append(c)
                index += 1
            }
        }
        throw failure("unterminated string")
    }

    /// After `\u`: four hex digits, and a second `\uXXXX` for a surrogate pair.
    mutating func appendUnicodeEscape(to out: inout [UInt8]) throws(JSONReadError) {
        var scalar = try hex4()
        if (0xD800...0xDBFF).contains(scalar) {
            guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else { throw failure("lone surrogate") }
            index += 2
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw failure("lone surrogate") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(scalar) {
            throw failure("lone surrogate")
        }
        out.append(contentsOf: Unicode.UTF8.encode(Unicode.Scalar(scalar)!)!)
    }

    mutating func hex4() throws(JSONReadError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw failure("short \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let d: UInt8
            switch c {
            case 0x30...0x39: d = c - 0x30
            case 0x41...0x46: d = c - 0x41 + 10
            case 0x61...0x66: d = c - 0x61 + 10
            default: throw failure("bad \\u escape")
            }
            v = v << 4 | UInt32(d)
            index += 1
        }
        return v
    }
}
