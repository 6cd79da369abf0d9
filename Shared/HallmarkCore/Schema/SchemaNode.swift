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

    /// The checks as compiled, which a `$ref` copies into the node that names it.
    let checks: [Check]
    /// The same checks as the validator runs them (``Step``).
    let steps: [Step]
    /// The subschemas of `oneOf`, `anyOf` and `allOf` steps, which name ranges of it.
    let children: [Borrowed<SchemaNode>]
    /// Everything the steps borrow, held strongly here.
    let owned: [any AnyObject & Sendable]

    init(_ checks: [Check]) {
        self.checks = MemberRules.fuse(checks)
        (steps, children, owned) = Self.lower(self.checks)
    }

    /// The first violation, its path relative to this node (`$`, `$.name`, `$[2]`, …). Paths are
    /// built on the way back from a failure only: a valid message costs no string work.
    /// - Parameter detailed: false where only whether the value passes matters (the
    ///   alternatives of `oneOf` and `anyOf`, `not`, `if`, `propertyNames`): a failure is then
    ///   ``SchemaViolation/unnamed``, with no text built for a reason nobody reads.
    func check(_ value: JSONValue, detailed: Bool = true) -> SchemaViolation? {
        // By index, and each step's payload is plain data or a `Borrowed`, so nothing shared
        // is retained: a step read with `for step in steps` was copied.
        for i in steps.indices {
            if let violation = run(i, value, detailed) { return violation }
        }
        return nil
    }

    private func run(_ i: Int, _ value: JSONValue, _ detailed: Bool) -> SchemaViolation? {
        func fail(_ reason: @autoclosure () -> String) -> SchemaViolation {
            detailed ? SchemaViolation(path: "$", reason: reason()) : .unnamed
        }
        switch steps[i] {
        case .types(let kinds):
            return kinds.contains(value) ? nil : fail("is not of type \(kinds.names)")
        case .properties(let properties):
            guard case .object(let members) = value else { return nil }
            return properties.with { properties in
                for (name, node) in properties.value {
                    if let member = members[name], let v = node.with({ $0.check(member, detailed: detailed) }) {
                        return v.under(".\(Self.safeName(name))")
                    }
                }
                return nil
            }
        case .members(let rules):
            guard case .object(let members) = value else { return nil }
            return rules.with { $0.check(members, detailed: detailed) }
        case .required(let names):
            guard case .object(let members) = value else { return nil }
            let missing = names.with { $0.missing(from: members) }
            if let missing { return fail("lacks required member \(names.with { $0.names[missing] })") }
        case .closed(let known):
            guard case .object(let members) = value else { return nil }
            if let extra = known.with({ known in members.keys.first(where: { !known.value.contains($0) }) }) {
                return fail("has a member not in the schema (\(Self.safeName(extra)))")
            }
        case .additional(let known, let node):
            guard case .object(let members) = value else { return nil }
            for (name, member) in members where !known.with({ $0.value.contains(name) }) {
                if let v = node.with({ $0.check(member, detailed: detailed) }) { return v.under(".\(Self.safeName(name))") }
            }
        case .propertyNames(let node):
            guard case .object(let members) = value else { return nil }
            for name in members.keys where node.with({ $0.check(.string(name), detailed: false) }) != nil {
                return fail("has a member name that breaks the schema (\(Self.safeName(name)))")
            }
        case .propertyCount(let min, let max):
            guard case .object(let members) = value else { return nil }
            if members.count < min || members.count > max { return fail("has \(members.count) members, not \(min)...\(max)") }
        case .items(let node):
            guard case .array(let elements) = value else { return nil }
            for (i, element) in elements.enumerated() {
                if let v = node.with({ $0.check(element, detailed: detailed) }) { return v.under("[\(i)]") }
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
            return allowed.with { $0.value.contains(where: { Self.same($0, value) }) } ? nil : fail("is not an allowed value")
        case .oneOfStrings(let allowed):
            guard case .string(let s) = value, allowed.with({ $0.value.contains(s) }) else {
                return fail("is not an allowed value")
            }
        case .pattern(let pattern):
            guard case .string(let s) = value else { return nil }
            return pattern.with { $0.value.matches(s) } ? nil : fail("does not match the pattern")
        case .length(let min, let max):
            guard case .string(let s) = value else { return nil }
            // A scalar is 1–4 UTF-8 bytes, so the byte count alone often settles it (a
            // megabyte body under a 16 MiB limit) without a pass over the string.
            let bytes = s.utf8.count
            if bytes <= max, (bytes + 3) / 4 >= min { break }
            let n = Self.scalarCount(s)
            if n < min || n > max { return fail("has length \(n), not \(min)...\(max)") }
        case .minimum(let bound):
            if case .number(let text) = value, bound.with({ $0.value.compare(text) }) == .orderedAscending {
                return fail("is below the minimum")
            }
        case .maximum(let bound):
            if case .number(let text) = value, bound.with({ $0.value.compare(text) }) == .orderedDescending {
                return fail("is above the maximum")
            }
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
            var n = 0
            for k in nodes where children[k].with({ $0.check(value, detailed: false) }) == nil { n += 1 }
            if n != 1 { return fail("matches \(n) of the oneOf alternatives, not 1") }
        case .anyOf(let nodes):
            if !nodes.contains(where: { children[$0].with { $0.check(value, detailed: false) } == nil }) {
                return fail("matches none of anyOf")
            }
        case .allOf(let nodes):
            for k in nodes { if let v = children[k].with({ $0.check(value, detailed: detailed) }) { return v } }
        case .not(let node):
            if node.with({ $0.check(value, detailed: false) }) == nil { return fail("matches a forbidden schema") }
        case .conditional(let condition, let then, let otherwise):
            let branch = condition.with { $0.check(value, detailed: false) } == nil ? then : otherwise
            return branch?.with { $0.check(value, detailed: detailed) }
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
