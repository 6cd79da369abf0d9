extension JSONReader {
    /// Member names to look for with ``stringMembers(_:named:)``, as bytes once.
    public struct MemberNames: Sendable {
        let names: [[UInt8]]
        public init(_ names: [String]) { self.names = names.map { Array($0.utf8) } }
        public var count: Int { names.count }
    }

    /// The string members named in `names` of a JSON object, in `names`' order (nil for one
    /// that is missing or not a string), read without building the rest: every other member
    /// is walked over (its nesting and string ends found, its contents not checked), so a
    /// megabyte member costs a scan, not a copy.
    ///
    /// For messages the process wrote itself (what a producer describes in its headers), not a
    /// check of input: ``parse(_:)`` is that.
    /// - Returns: nil when the bytes are not a JSON object, or name one of `names` twice.
    public static func stringMembers(_ bytes: [UInt8], named names: MemberNames) -> [String?]? {
        bytes.withUnsafeBufferPointer { buffer -> [String?]? in
            var parser = Parser(bytes: buffer)
            do throws(JSONReadError) { return try parser.stringMembers(named: names) } catch { return nil }
        }
    }
}

extension Parser {
    mutating func stringMembers(named names: JSONReader.MemberNames) throws(JSONReadError) -> [String?]? {
        skipWhitespace()
        guard current == UInt8(ascii: "{") else { return nil }
        index += 1
        var found = [String?](repeating: nil, count: names.count)
        var seen = [Bool](repeating: false, count: names.count)
        skipWhitespace()
        if current == UInt8(ascii: "}") { return found }
        while true {
            guard current == UInt8(ascii: "\"") else { throw failure("expected a member name") }
            let wanted = try memberName(in: names)
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "':'")
            skipWhitespace()
            if let wanted {
                guard !seen[wanted] else { return nil }
                seen[wanted] = true
                if current == UInt8(ascii: "\"") { found[wanted] = try string() } else { try skipValue(depth: 1) }
            } else {
                try skipValue(depth: 1)
            }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case UInt8(ascii: "}"): return found
            default: throw failure("expected ',' or '}'")
            }
        }
    }

    /// Reads a member name and returns its place in `names`, if there: compared as bytes
    /// when it has no escapes (no string made), else decoded first.
    mutating func memberName(in names: JSONReader.MemberNames) throws(JSONReadError) -> Int? {
        let start = index + 1
        let end = JSONStringScan.firstSpecial(in: bytes, from: start)
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else {
            let key = Array(try string().utf8)
            return names.names.firstIndex(of: key)
        }
        index = end + 1
        let key = UnsafeBufferPointer(rebasing: bytes[start..<end])
        return names.names.firstIndex { $0.count == key.count && $0.elementsEqual(key) }
    }

    /// Walks over one value.
    mutating func skipValue(depth: Int) throws(JSONReadError) {
        guard let byte = current else { throw failure("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard depth < JSONReader.maxDepth else { throw failure("nested too deeply") }
            let object = byte == UInt8(ascii: "{")
            let close = object ? UInt8(ascii: "}") : UInt8(ascii: "]")
            index += 1
            skipWhitespace()
            if current == close {
                index += 1
                return
            }
            while true {
                if object {
                    guard current == UInt8(ascii: "\"") else { throw failure("expected a member name") }
                    try skipString()
                    skipWhitespace()
                    try expect(UInt8(ascii: ":"), "':'")
                    skipWhitespace()
                }
                try skipValue(depth: depth + 1)
                skipWhitespace()
                if current == close {
                    index += 1
                    return
                }
                try expect(UInt8(ascii: ","), "','")
                skipWhitespace()
            }
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): _ = try number()
        default: throw failure("unexpected character")
        }
    }

    /// Walks over a string: to its closing quote, over escapes.
    mutating func skipString() throws(JSONReadError) {
        index += 1
        while true {
            index = JSONStringScan.firstSpecial(in: bytes, from: index)
            guard index < bytes.count else { throw failure("unterminated string") }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index += 1
                return
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.count else { throw failure("unterminated string") }
                index += 2
            default: throw failure("control character in a string")
            }
        }
    }
}
