import Foundation

/// One compiled (sub)schema: the checks it makes, in order.
final class SchemaNode: Sendable {
    enum Kind: String, Sendable, CaseIterable { case null, boolean, object, array, string, number, integer }

    enum Check: Sendable {
        case types(Kinds)
        case properties([String: SchemaNode])
        case required([String])
        case closed(Set<String>)
        /// `properties` and `required` (and `additionalProperties: false`, when it came just
        /// before them) checked in one pass over the members.
        case members(MemberRules)
        case additional(Set<String>, SchemaNode)
        case propertyNames(SchemaNode)
        case propertyCount(min: Int, max: Int)
        case items(SchemaNode)
        case itemCount(min: Int, max: Int)
        case uniqueItems
        case oneOfValues([JSONValue])
        case pattern(Pattern)
        case length(min: Int, max: Int)
        case minimum(Bound)
        case maximum(Bound)
        case uuid
        case dateTime
        case base64
        case oneOf([SchemaNode])
        case anyOf([SchemaNode])
        case allOf([SchemaNode])
        case not(SchemaNode)
        case conditional(if: SchemaNode, then: SchemaNode?, else: SchemaNode?)
        case never
    }

    let checks: [Check]

    init(_ checks: [Check]) { self.checks = MemberRules.fuse(checks) }

    /// The first violation, its path relative to this node (`$`, `$.name`, `$[2]`, …). Paths are
    /// built on the way back from a failure only: a valid message costs no string work.
    /// - Parameter detailed: false where only whether the value passes matters (the
    ///   alternatives of `oneOf` and `anyOf`, `not`, `if`, `propertyNames`): a failure is then
    ///   ``SchemaViolation/unnamed``, with no text built for a reason nobody reads.
    func check(_ value: JSONValue, detailed: Bool = true) -> SchemaViolation? {
        // By index, so each check is read in place: `for check in checks` copied every one
        // (its payload's references retained and released), a third of a token request's check.
        for i in checks.indices {
            if let violation = run(i, value, detailed) { return violation }
        }
        return nil
    }

    private func run(_ i: Int, _ value: JSONValue, _ detailed: Bool) -> SchemaViolation? {
        func fail(_ reason: @autoclosure () -> String) -> SchemaViolation {
            detailed ? SchemaViolation(path: "$", reason: reason()) : .unnamed
        }
        switch checks[i] {
        case .types(let kinds):
            return kinds.contains(value) ? nil : fail("is not of type \(kinds.names)")
        case .properties(let properties):
            guard case .object(let members) = value else { return nil }
            for (name, node) in properties {
                if let member = members[name], let v = node.check(member, detailed: detailed) {
                    return v.under(".\(Self.safeName(name))")
                }
            }
        case .members(let rules):
            guard case .object(let members) = value else { return nil }
            return rules.check(members, detailed: detailed)
        case .required(let names):
            guard case .object(let members) = value else { return nil }
            if let missing = names.first(where: { members[$0] == nil }) { return fail("lacks required member \(missing)") }
        case .closed(let known):
            guard case .object(let members) = value else { return nil }
            if let extra = members.keys.first(where: { !known.contains($0) }) {
                return fail("has a member not in the schema (\(Self.safeName(extra)))")
            }
        case .additional(let known, let node):
            guard case .object(let members) = value else { return nil }
            for (name, member) in members where !known.contains(name) {
                if let v = node.check(member, detailed: detailed) { return v.under(".\(Self.safeName(name))") }
            }
        case .propertyNames(let node):
            guard case .object(let members) = value else { return nil }
            for name in members.keys where node.check(.string(name), detailed: false) != nil {
                return fail("has a member name that breaks the schema (\(Self.safeName(name)))")
            }
        case .propertyCount(let min, let max):
            guard case .object(let members) = value else { return nil }
            if members.count < min || members.count > max { return fail("has \(members.count) members, not \(min)...\(max)") }
        case .items(let node):
            guard case .array(let elements) = value else { return nil }
            for (i, element) in elements.enumerated() {
                if let v = node.check(element, detailed: detailed) { return v.under("[\(i)]") }
            }
        case .itemCount(let min, let max):
            guard case .array(let elements) = value else { return nil }
            if elements.count < min || elements.count > max { return fail("has \(elements.count) items, not \(min)...\(max)") }
        case .uniqueItems:
            guard case .array(let elements) = value else { return nil }
            for i in elements.indices where elements[(i + 1)...].contains(where: { Self.same($0, elements[i]) }) {
                return fail("has repeated items")
            }
        case .oneOfValues(let allowed):
            return allowed.contains(where: { Self.same($0, value) }) ? nil : fail("is not an allowed value")
        case .pattern(let pattern):
            guard case .string(let s) = value else { return nil }
            return pattern.matches(s) ? nil : fail("does not match the pattern")
        case .length(let min, let max):
            guard case .string(let s) = value else { return nil }
            // A scalar is 1–4 UTF-8 bytes, so the byte count alone often settles it (a
            // megabyte body under a 16 MiB limit) without a pass over the string.
            let bytes = s.utf8.count
            if bytes <= max, (bytes + 3) / 4 >= min { break }
            let n = Self.scalarCount(s)
            if n < min || n > max { return fail("has length \(n), not \(min)...\(max)") }
        case .minimum(let bound):
            if case .number(let text) = value, bound.compare(text) == .orderedAscending { return fail("is below the minimum") }
        case .maximum(let bound):
            if case .number(let text) = value, bound.compare(text) == .orderedDescending { return fail("is above the maximum") }
        case .uuid:
            guard case .string(let s) = value else { return nil }
            return Self.isUUID(s) ? nil : fail("is not a UUID")
        case .dateTime:
            guard case .string(let s) = value else { return nil }
            return Timestamp.parse(s) != nil ? nil : fail("is not a UTC RFC 3339 date-time")
        case .base64:
            guard case .string(let s) = value else { return nil }
            return Base64Check.isCanonical(s) ? nil : fail("is not canonical padded base64")
        case .oneOf(let nodes):
            let n = nodes.reduce(0) { $0 + ($1.check(value, detailed: false) == nil ? 1 : 0) }
            if n != 1 { return fail("matches \(n) of the oneOf alternatives, not 1") }
        case .anyOf(let nodes):
            if !nodes.contains(where: { $0.check(value, detailed: false) == nil }) { return fail("matches none of anyOf") }
        case .allOf(let nodes):
            for node in nodes { if let v = node.check(value, detailed: detailed) { return v } }
        case .not(let node):
            if node.check(value, detailed: false) == nil { return fail("matches a forbidden schema") }
        case .conditional(let condition, let then, let otherwise):
            let branch = condition.check(value, detailed: false) == nil ? then : otherwise
            return branch?.check(value, detailed: detailed)
        case .never:
            return fail("is not allowed")
        }
        return nil
    }

    /// The Unicode scalars in `s`: its UTF-8 bytes that start a scalar (a plain loop; the
    /// scalar view decodes each one).
    static func scalarCount(_ s: String) -> Int {
        var s = s
        return s.withUTF8 { bytes in
            var n = 0
            for b in bytes where b & 0xC0 != 0x80 { n &+= 1 }
            return n
        }
    }

    /// An integer too large for `Int` is still an integer (its bounds then fail).
    static func isLargeInteger(_ value: JSONValue) -> Bool {
        guard case .number(let text) = value else { return false }
        return !text.utf8.contains(where: { $0 == 0x2E || $0 | 0x20 == 0x65 })
    }

    static func number(_ value: JSONValue) -> Double? {
        guard case .number(let text) = value else { return nil }
        return Double(text)
    }

    /// The 36-character form `8-4-4-4-12` of hex digits (either case).
    static func isUUID(_ s: String) -> Bool { UUID(text: s) != nil }

    /// JSON Schema equality: numbers by value (`1` equals `1.0`), arrays and objects member by
    /// member, everything else as written.
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        // One side at a time, not `switch (a, b)`: the pair was a copy of both values, which
        // cost more than comparing a table reference or a const.
        switch a {
        case .number(let x):
            guard case .number(let y) = b else { return false }
            if x == y { return true }
            if let x = Int(x), let y = Int(y) { return x == y }
            if let x = Bound.integerDigits(x), let y = Bound.integerDigits(y) { return x == y }
            return Double(x) == Double(y)
        case .string(let x):
            guard case .string(let y) = b else { return false }
            return x == y
        case .array(let x):
            guard case .array(let y) = b else { return false }
            return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case .object(let x):
            guard case .object(let y) = b else { return false }
            return x.count == y.count && x.allSatisfy { key, v in y[key].map { same(v, $0) } ?? false }
        default:
            return a == b
        }
    }

    /// A member name fit for a violation's text: short and printable only.
    static func safeName(_ name: String) -> String { Redaction.name(name) }
}

/// Canonical padded base64: length a multiple of 4, `=` only as padding, and the unused bits
/// before the padding zero (so one byte string has exactly one encoding).
enum Base64Check {
    static func isCanonical(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { b in
            let n = b.count
            guard n % 4 == 0 else { return false }
            guard n > 0, let p = b.baseAddress else { return true }
            var pad = 0
            // `=` only at the end: a second one only before a first (`ww=w` is not padding).
            if p[n - 1] == 0x3D { pad = p[n - 2] == 0x3D ? 2 : 1 }
            // A plain loop over a table: this runs over whole bodies, debug builds included.
            let end = n - pad
            return table.withUnsafeBufferPointer { t in
                let values = t.baseAddress!
                var i = 0
                var bad: UInt8 = 0
                while i < end {
                    bad |= values[Int(p[i])]
                    i &+= 1
                }
                guard bad & 0x80 == 0 else { return false }
                guard pad > 0 else { return true }
                let last = values[Int(p[end - 1])]
                return pad == 1 ? last & 0x03 == 0 : last & 0x0F == 0
            }
        }
    }

    /// The 6-bit value of each base64 character; 0x80 for every other byte.
    static let table: [UInt8] = (0...255).map { value(UInt8($0)) ?? 0x80 }

    static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x41...0x5A: return c - 0x41
        case 0x61...0x7A: return c - 0x61 + 26
        case 0x30...0x39: return c - 0x30 + 52
        case 0x2B: return 62
        case 0x2F: return 63
        default: return nil
        }
    }
}

/// A `minimum` or `maximum`. An integer bound is compared exactly with an integer value, so
/// bounds beyond 2^53 (a bigint counter's 9223372036854775807) hold to the last digit;
/// anything else compares as `Double`.
struct Bound: Sendable {
    let value: Double
    /// The bound as a sign and digits without leading zeros, when written as an integer.
    let integer: (negative: Bool, digits: Substring)?
    /// The bound as an `Int`, when it is an integer that fits.
    let small: Int?

    init?(_ rule: JSONValue) {
        guard case .number(let text) = rule, let value = Double(text) else { return nil }
        self.value = value
        integer = Self.integerDigits(text)
        small = integer != nil ? Int(text) : nil
    }

    /// How `text` orders against the bound: `.orderedAscending` when the value is below it.
    func compare(_ text: String) -> ComparisonResult {
        // The common case, cheaply: an integer bound and a value that is an `Int` as written
        // (JSON numbers have no `+` and no leading zeros, so `Int(_:)` reads them exactly).
        if let bound = small, let v = Int(text) {
            return v < bound ? .orderedAscending : v > bound ? .orderedDescending : .orderedSame
        }
        if let bound = integer, let v = Self.integerDigits(text) {
            if v.negative != bound.negative { return v.negative ? .orderedAscending : .orderedDescending }
            let magnitude = Self.compareMagnitude(v.digits, bound.digits)
            return v.negative ? magnitude.reversed : magnitude
        }
        guard let x = Double(text) else { return .orderedSame }
        return x < value ? .orderedAscending : x > value ? .orderedDescending : .orderedSame
    }

    /// Sign and digits of an integer literal (no fraction or exponent); `-0` is `0`.
    static func integerDigits(_ text: String) -> (negative: Bool, digits: Substring)? {
        guard !text.utf8.contains(where: { $0 == 0x2E || $0 | 0x20 == 0x65 }) else { return nil }
        var digits = Substring(text)
        let negative = digits.first == "-"
        if negative { digits = digits.dropFirst() }
        while digits.count > 1, digits.first == "0" { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return (negative && digits != "0", digits)
    }

    static func compareMagnitude(_ a: Substring, _ b: Substring) -> ComparisonResult {
        if a.count != b.count { return a.count < b.count ? .orderedAscending : .orderedDescending }
        return a == b ? .orderedSame : a < b ? .orderedAscending : .orderedDescending
    }
}

extension ComparisonResult {
    fileprivate var reversed: ComparisonResult {
        switch self {
        case .orderedAscending: .orderedDescending
        case .orderedDescending: .orderedAscending
        case .orderedSame: .orderedSame
        }
    }
}
