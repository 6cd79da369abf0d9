import Foundation
import HallmarkCore

/// Derives invalid documents from a valid example and its JSON Schema: for every rule the
/// example meets, a copy that breaks that rule alone (as far as a generic derivation can):
/// each required member dropped, an unknown member added to every closed object, and each
/// `type`, `const`/`enum`, `pattern`, length, item-count, `uniqueItems`, bound, `format`,
/// `contentEncoding`, `propertyNames` and member-count rule broken. Alternatives (`oneOf`,
/// `anyOf`, `if`) are followed into the branch the example takes.
///
/// Every derived document must be refused by the schema; tests check that, here and through
/// the running services.
public struct SchemaViolations {
    /// One derived document.
    public struct Case: Sendable, CustomStringConvertible {
        /// Where and which rule, e.g. `$.camera_token.nonce: pattern (upper case)`.
        public let rule: String
        /// The document.
        public let document: JSONValue
        /// Its bytes (`JSONWriter`).
        public var bytes: [UInt8] { JSONWriter.write(document) }
        public var description: String { rule }
    }

    let defs: [String: JSONValue]
    let example: JSONValue
    /// Derivations larger than this (a 16 MiB `maxLength` + 1, say) are left out.
    let maxBytes: Int
    var cases: [Case] = []

    /// Every case derived from `example` under `schema` (a `proto-json/` document).
    public static func derive(schema: JSONValue, example: JSONValue, maxBytes: Int = 1 << 20) -> [Case] {
        var d = SchemaViolations(defs: schema["$defs"]?.object ?? [:], example: example, maxBytes: maxBytes)
        d.walk(schema, example, [])
        var seen = Set<[UInt8]>()
        return d.cases.filter { seen.insert($0.bytes).inserted && $0.document != example }
    }

    /// Whether `value` meets `schema` (a subschema of this document).
    func accepts(_ schema: JSONValue, _ value: JSONValue) -> Bool {
        guard case .object(var members) = schema else { return schema != .bool(false) }
        members["$defs"] = .object(defs)
        guard let compiled = try? JSONSchema(.object(members)) else { return false }
        return compiled.validate(value) == nil
    }

    mutating func add(_ path: [Step], _ rule: String, _ replacement: JSONValue?) {
        guard let document = Self.replacing(example, at: path[...], with: replacement) else { return }
        if let replacement, case .string(let s) = replacement, s.utf8.count > maxBytes { return }
        if case .array(let a) = replacement, a.count > 20_000 { return }
        cases.append(Case(rule: "\(Self.render(path)): \(rule)", document: document))
    }

    mutating func walk(_ schema: JSONValue, _ value: JSONValue, _ path: [Step]) {
        guard case .object(let s) = schema else { return }
        if let ref = s["$ref"]?.string, ref.hasPrefix("#/$defs/"), let target = defs[String(ref.dropFirst(8))] {
            walk(target, value, path)
        }
        for sub in s["allOf"]?.array ?? [] { walk(sub, value, path) }
        for key in ["oneOf", "anyOf"] {
            for sub in s[key]?.array ?? [] where accepts(sub, value) { walk(sub, value, path) }
        }
        if let condition = s["if"] {
            if let branch = accepts(condition, value) ? s["then"] : s["else"] { walk(branch, value, path) }
        }
        if let type = s["type"] { breakType(type, value, path) }
        if let allowed = s["const"].map({ [$0] }) ?? s["enum"]?.array { breakValue(allowed, value, path) }
        switch value {
        case .string(let text): strings(s, text, path)
        case .number(let text): numbers(s, text, path)
        case .array(let elements): arrays(s, elements, path)
        case .object(let members): objects(s, members, path)
        default: break
        }
    }
}

extension SchemaViolations {
    /// A step into a document: a member name or an array index.
    enum Step: Sendable {
        case key(String)
        case index(Int)
    }

    static func render(_ path: [Step]) -> String {
        "$"
            + path.map { step in
                switch step {
                case .key(let k): ".\(k)"
                case .index(let i): "[\(i)]"
                }
            }.joined()
    }

    /// `root` with the value at `path` replaced (nil removes the member).
    static func replacing(_ root: JSONValue, at path: ArraySlice<Step>, with new: JSONValue?) -> JSONValue? {
        guard let step = path.first else { return new }
        switch (step, root) {
        case (.key(let k), .object(var members)):
            if path.count == 1 {
                members[k] = new
            } else {
                guard let inner = members[k], let replaced = replacing(inner, at: path.dropFirst(), with: new) else { return nil }
                members[k] = replaced
            }
            return .object(members)
        case (.index(let i), .array(var elements)) where elements.indices.contains(i):
            if path.count == 1 {
                if let new { elements[i] = new } else { elements.remove(at: i) }
            } else {
                guard let replaced = replacing(elements[i], at: path.dropFirst(), with: new) else { return nil }
                elements[i] = replaced
            }
            return .array(elements)
        default:
            return nil
        }
    }
}
