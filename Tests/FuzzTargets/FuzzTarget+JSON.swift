import Foundation
import HallmarkCore

extension FuzzTarget {
    /// `JSONReader` against Foundation's `JSONSerialization` on the same bytes, and
    /// `JSONWriter`'s output read back.
    static let json = FuzzTarget(
        name: "json", summary: "JSONReader against JSONSerialization (accept/reject and value); JSONWriter round trip",
        run: JSONDifferential.run, seeds: JSONDifferential.seeds, dictionary: JSONDifferential.dictionary)
}

enum JSONDifferential {
    /// Why `JSONReader` may refuse what `JSONSerialization` takes: the strictness its
    /// documentation promises (RFC 8259's interoperability advice, taken as rules).
    static let stricter: Set<String> = ["duplicate member name", "nested too deeply", "lone surrogate"]

    static func run(_ bytes: [UInt8]) throws(FuzzFinding) {
        let ours: JSONValue?
        var refusal: JSONReadError?
        do {
            ours = try JSONReader.parse(bytes)
        } catch {
            ours = nil
            refusal = error
            try require(error.offset >= 0 && error.offset <= bytes.count, "a refusal's offset lies outside the input")
        }
        if ours != nil {
            try require(String(validating: bytes, as: UTF8.self) != nil, "JSONReader accepted bytes that are not UTF-8")
            // A raw NUL is neither whitespace nor allowed unescaped in a string.
            try require(!bytes.contains(0), "JSONReader accepted a NUL byte")
        }
        // Foundation guesses UTF-16 or UTF-32 from NULs among the first four bytes (`00 00 00 34`
        // reads as "4") and skips byte order marks; JSONReader reads UTF-8 only (RFC 8259), so
        // only bytes Foundation also reads as UTF-8 are compared.
        guard !bytes.prefix(4).contains(0), !bytes.starts(with: [0xEF, 0xBB, 0xBF]) else {
            try require(ours == nil, "JSONReader accepted a byte order mark or a NUL")
            return
        }
        let theirs = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        switch (ours, theirs) {
        case (let ours?, let theirs?):
            try require(same(ours, theirs), "JSONReader and JSONSerialization read different values")
        case (let ours?, nil):
            try require(!representable(ours), "JSONReader accepted what JSONSerialization refuses")
        case (nil, _?):
            // Foundation stops at a NUL byte after the value; RFC 8259 allows only whitespace there.
            let at = refusal!.offset
            let trailingNULs = refusal!.reason == "unexpected data after the value" && bytes[at...].allSatisfy { $0 == 0 }
            // Foundation takes a comma before `]` or `}` (`[1,]`); RFC 8259's grammar does not.
            let trailingComma =
                at < bytes.count && (bytes[at] == UInt8(ascii: "]") || bytes[at] == UInt8(ascii: "}"))
                && bytes[..<at].last(where: { !" \t\n\r".utf8.contains($0) }) == UInt8(ascii: ",")
            try require(
                stricter.contains(refusal!.reason) || trailingNULs || trailingComma,
                "JSONReader refused what JSONSerialization takes (\(refusal!.reason))")
        case (nil, nil):
            break
        }
        guard let ours else { return }
        let written = JSONWriter.write(ours)
        let reread: JSONValue
        do {
            reread = try JSONReader.parse(written)
        } catch {
            throw FuzzFinding("JSONReader refused JSONWriter's output (\(error.reason))")
        }
        try require(reread == ours, "JSONWriter's output reads back as a different value")
    }

    /// Whether Foundation is expected to read every number of `value`: it refuses literals
    /// beyond a `Double`'s range, which RFC 8259 allows and `JSONReader` keeps as text.
    static func representable(_ value: JSONValue) -> Bool {
        switch value {
        case .number(let literal): return Double(literal)?.isFinite == true
        case .array(let items): return items.allSatisfy(representable)
        case .object(let members): return members.values.allSatisfy(representable)
        case .null, .bool, .string: return true
        }
    }

    static func same(_ ours: JSONValue, _ theirs: Any) -> Bool {
        switch ours {
        case .null: return theirs is NSNull
        case .bool(let b): return (theirs as? Bool) == b
        case .string(let s): return (theirs as? String).map { readsAs(s, $0) } ?? false
        case .number(let literal):
            guard let n = theirs as? NSNumber, let d = Double(literal) else { return false }
            if let exact = Int64(literal) { return n.int64Value == exact || n.doubleValue == d }
            // Foundation rounds long literals (many digits, large exponents) through its own
            // decimal path and may land a few ulps from the correctly rounded `Double`.
            let theirs = n.doubleValue
            return theirs == d || (d.isInfinite && theirs.isInfinite) || abs(theirs - d) <= abs(d) * 0x1p-48
        case .array(let items):
            guard let other = theirs as? [Any], other.count == items.count else { return false }
            return zip(items, other).allSatisfy { same($0, $1) }
        case .object(let members):
            guard let other = theirs as? [String: Any] else { return false }
            // Names that differ only by U+FEFF may become one name in Foundation's object, or not,
            // depending on where each mark stands (see `readsAs`): no member-by-member comparison.
            if Set(members.keys.map(withoutBOMs)).count < members.count { return other.count <= members.count }
            guard other.count == members.count else { return false }
            let theirsByName = Dictionary(other.map { (withoutBOMs($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
            return members.allSatisfy { key, value in theirsByName[withoutBOMs(key)].map { same(value, $0) } ?? false }
        }
    }

    /// Whether Foundation's string is ours. Foundation drops a raw U+FEFF (EF BB BF) that opens a
    /// string or a member name, or follows an escape such as `\n`, as if it were a byte order
    /// mark; the escape `\ufeff` survives. RFC 8259 makes it a character like any other, and
    /// `JSONReader` keeps it. So strings and names are compared without it.
    static func readsAs(_ ours: String, _ theirs: String) -> Bool {
        Array(theirs.utf8) == Array(ours.utf8) || withoutBOMs(theirs) == withoutBOMs(ours)
    }

    static func withoutBOMs(_ text: String) -> [UInt8] {
        Array(String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 != "\u{FEFF}" })).utf8)
    }

    static func seeds() throws -> [[UInt8]] {
        [
            #"{"schema":"hallmark.sign.request.v1","id":"6f1c2a4e-8a61-4d3e-9c1e-2b7f4a9d0c11","n":[1,-2.5e-3,true,null]}"#,
            #"[{"a":"\u00e9\ud83d\ude00\n\t\"\\/"},[],{},0,-0,1E+2,123456789012345678901234567890]"#,
            #""plain string""#, "  42  ", "null", "false", #"{"nested":{"deeper":[[[[{"x":1}]]]]}}"#,
        ].map { Array($0.utf8) }
    }

    static let dictionary = [
        "{", "}", "[", "]", ":", ",", "\"", "true", "false", "null", "-0", "1e308", "1E-400",
        ".5", "\\u", "\\ud83d\\ude00", "\\ud800", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n",
        "\\r", "\\t", "\u{00e9}", "\u{FEFF}", "\"a\":", "\"a\":1,\"a\":2",
    ]
}
