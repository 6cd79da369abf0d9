import Foundation
import HallmarkCore

/// The derivations, one family of keywords each.
extension SchemaViolations {
    static let invalidDateTimes = [
        "2025-02-30T00:00:00Z", "0000-01-01T00:00:00Z", "99999-01-01T00:00:00Z", "2025-01-01T00:00:00+05:30",
        "2025-01-01t00:00:00z", "2025-01-01T24:00:00Z", "2025-01-01 00:00:00Z", "2025-01-01T00:00:00.Z",
    ]
    static let invalidBase64 = ["YQ===", "YQ=", "YR==", "Y Q==", "YQ"]
    /// Characters a mutation puts in place of one of a string's.
    static let replacements: [Unicode.Scalar] = [
        "!", " ", "Z", "z", "0", "=", "/", "G", "g", "-", ".", "\u{E9}", "\u{7F}", "\t", "\u{0}",
    ]

    mutating func breakType(_ rule: JSONValue, _ value: JSONValue, _ path: [Step]) {
        let allowed = Set(rule.array?.compactMap(\.string) ?? rule.string.map { [$0] } ?? [])
        let others: [(String, JSONValue)] = [
            ("number", .number("12345")), ("string", .string("12345")), ("boolean", .bool(true)),
            ("null", .null), ("array", .array([])), ("object", .object([:])),
        ]
        if let (kind, other) = others.first(where: { kind, _ in
            !allowed.contains(kind) && !(kind == "number" && allowed.contains("integer"))
        }) {
            add(path, "type (\(kind))", other)
        }
        if allowed.contains("integer") && !allowed.contains("number"), case .number(let text) = value {
            add(path, "type (a fraction)", .number(text + ".5"))
        }
    }

    mutating func breakValue(_ allowed: [JSONValue], _ value: JSONValue, _ path: [Step]) {
        var candidates: [JSONValue] = []
        switch value {
        case .string(let s): candidates = [.string(s.uppercased()), .string(s + "_x"), .string("x" + s)]
        case .number(let n): candidates = [.number(Self.step(n, by: 1) ?? "12345"), .number("0.5")]
        case .bool(let b): candidates = [.bool(!b)]
        default: candidates = [.string("x")]
        }
        if let other = candidates.first(where: { !allowed.contains($0) }) { add(path, "enum/const", other) }
    }

    mutating func strings(_ s: [String: JSONValue], _ text: String, _ path: [Step]) {
        let minLength = s["minLength"]?.integer ?? 0, maxLength = s["maxLength"]?.integer
        let count = text.unicodeScalars.count
        if minLength > 0, count >= minLength {
            add(path, "minLength", .string(String(text.unicodeScalars.prefix(minLength - 1))))
        }
        if let maxLength, maxLength < maxBytes {
            let pad = text.unicodeScalars.last ?? "a"
            var longer = text.unicodeScalars
            longer.append(contentsOf: repeatElement(pad, count: maxLength + 1 - count))
            add(path, "maxLength", .string(String(longer)))
        }
        if let source = s["pattern"]?.string, let pattern = try? Pattern(source) {
            let fits = { (c: String) in
                let n = c.unicodeScalars.count
                return n >= minLength && n <= (maxLength ?? Int.max) && !pattern.matches(c)
            }
            if let broken = patternCandidates(text).first(where: fits) { add(path, "pattern", .string(broken)) }
            var withNUL = Array(text.unicodeScalars)
            withNUL.insert("\u{0}", at: withNUL.count / 2)
            let nul = String(String.UnicodeScalarView(withNUL))
            if !pattern.matches(nul) { add(path, "pattern (a NUL)", .string(nul)) }
        }
        switch s["format"]?.string {
        case "date-time": for bad in Self.invalidDateTimes { add(path, "format date-time (\(bad))", .string(bad)) }
        case "uuid":
            add(path, "format uuid", .string("not-a-uuid"))
            add(path, "format uuid (a non-hex digit)", .string("g" + text.dropFirst()))
        default: break
        }
        if s["contentEncoding"]?.string == "base64" {
            for bad in Self.invalidBase64 { add(path, "contentEncoding base64 (\(bad))", .string(bad)) }
        }
    }

    /// Strings close to `text` that a pattern may refuse: other cases first (upper-case hex),
    /// then one character replaced near either end, then one added or removed.
    func patternCandidates(_ text: String) -> [String] {
        var out = [text.uppercased(), text.lowercased()]
        let scalars = Array(text.unicodeScalars)
        let positions = Array(Set(Array(scalars.indices.prefix(4)) + Array(scalars.indices.suffix(4)))).sorted()
        for i in positions {
            for r in Self.replacements where r != scalars[i] {
                var copy = scalars
                copy[i] = r
                out.append(String(String.UnicodeScalarView(copy)))
            }
        }
        return out + [text + "!", "!" + text, String(text.dropLast()), text + "\u{0}"]
    }

    mutating func numbers(_ s: [String: JSONValue], _ text: String, _ path: [Step]) {
        if case .number(let bound) = s["minimum"], let below = Self.step(bound, by: -1) { add(path, "minimum", .number(below)) }
        if case .number(let bound) = s["maximum"], let above = Self.step(bound, by: 1) { add(path, "maximum", .number(above)) }
    }

    mutating func arrays(_ s: [String: JSONValue], _ elements: [JSONValue], _ path: [Step]) {
        if let items = s["items"], let first = elements.first { walk(items, first, path + [.index(0)]) }
        let minItems = s["minItems"]?.integer ?? 0, maxItems = s["maxItems"]?.integer
        if minItems > 0, elements.count >= minItems { add(path, "minItems", .array(Array(elements.prefix(minItems - 1)))) }
        if let maxItems, let last = elements.last, maxItems < 20_000 {
            add(path, "maxItems", .array(elements + Array(repeating: last, count: maxItems + 1 - elements.count)))
        }
        if s["uniqueItems"] == .bool(true), let first = elements.first {
            if elements.count < (maxItems ?? Int.max) {
                add(path, "uniqueItems", .array(elements + [first]))
            } else if elements.count >= 2 {
                add(path, "uniqueItems", .array(elements.dropLast() + [first]))
            }
        }
    }

    mutating func objects(_ s: [String: JSONValue], _ members: [String: JSONValue], _ path: [Step]) {
        let properties = s["properties"]?.object ?? [:]
        for (name, sub) in properties.sorted(by: { $0.key < $1.key }) {
            if let member = members[name] { walk(sub, member, path + [.key(name)]) }
        }
        for name in s["required"]?.array?.compactMap(\.string) ?? [] where members[name] != nil {
            add(path + [.key(name)], "required", nil)
        }
        let sample = members.sorted(by: { $0.key < $1.key }).first { properties[$0.key] == nil }
        switch s["additionalProperties"] {
        case .bool(false)?:
            var name = "x_unknown"
            while properties[name] != nil || members[name] != nil { name += "_" }
            add(path + [.key(name)], "additionalProperties (an unknown member)", .string("x"))
        case let schema? where schema.object != nil:
            if let (name, value) = sample { walk(schema, value, path + [.key(name)]) }
        default: break
        }
        let filler = sample?.value ?? .string("x")
        if let names = s["propertyNames"] {
            let bad = ["", "bad name", "x\u{0}y", "\u{E4}", "x:y\n", String(repeating: "a", count: 257)]
            for name in bad where members[name] == nil && !accepts(names, .string(name)) {
                add(path + [.key(name)], "propertyNames", filler)
            }
        }
        if let maxProperties = s["maxProperties"]?.integer, maxProperties < 10_000 {
            var extra = members
            var n = 0
            while extra.count <= maxProperties {
                n += 1
                extra["x_extra_\(n)"] = filler
            }
            add(path, "maxProperties", .object(extra))
        }
    }

    /// An integer literal plus `delta` (±1), exactly, or a non-integer bound moved by one.
    static func step(_ text: String, by delta: Int) -> String? {
        guard !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) else {
            return Double(text).map { String($0 + Double(delta)) }
        }
        let negative = text.hasPrefix("-")
        var digits = Array(negative ? text.dropFirst() : Substring(text)).compactMap(\.wholeNumberValue)
        guard !digits.isEmpty else { return nil }
        if digits == [0] { return delta > 0 ? "1" : "-1" }
        // Away from zero adds to the magnitude; towards zero subtracts from it.
        if (delta > 0) != negative {
            var i = digits.count - 1
            while i >= 0 && digits[i] == 9 { digits[i] = 0; i -= 1 }
            if i < 0 { digits.insert(1, at: 0) } else { digits[i] += 1 }
        } else {
            var i = digits.count - 1
            while digits[i] == 0 { digits[i] = 9; i -= 1 }
            digits[i] -= 1
            while digits.count > 1 && digits[0] == 0 { digits.removeFirst() }
        }
        let magnitude = digits.map(String.init).joined()
        return negative && magnitude != "0" ? "-" + magnitude : magnitude
    }
}
