import Foundation

/// Validates JSON values against the JSON Schema 2020-12 keywords Hallmark's schemas use.
///
/// It refuses any keyword it does not implement, so a schema can never pass by relying on an
/// unchecked keyword. Implemented: `type`, `properties`, `required`, `additionalProperties`,
/// `items`, `enum`, `const`, `pattern`, `minLength`, `maxLength`, `minimum`, `maximum`,
/// `minItems`, `maxItems`, `format` (`date-time`, `uuid`), `oneOf`, `anyOf`, `$ref` to `#/$defs/…`,
/// and the annotations `$schema`, `$id`, `title`, `description`, `$defs`, `examples`.
public struct JSONSchemaValidator {
    public struct Failure: Error, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "\(path): \(reason)" }
    }

    let root: [String: Any]

    public init(schema: Any) throws {
        guard let object = schema as? [String: Any] else { throw Failure(path: "#", reason: "schema is not an object") }
        root = object
    }

    /// Loads `proto-json/<name>.json` from the repository.
    public static func load(_ name: String) throws -> JSONSchemaValidator {
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let data = try Data(contentsOf: repo.appendingPathComponent("proto-json/\(name).json"))
        return try JSONSchemaValidator(schema: JSONSerialization.jsonObject(with: data))
    }

    /// Every keyword anywhere in the schema is one this validator implements.
    public func lint() throws { try Self.lint(root, "#") }

    private static let applicators: Set<String> = ["properties", "$defs"]

    private static func lint(_ schema: [String: Any], _ path: String) throws {
        let known: Set<String> = annotations.union([
            "$ref", "type", "properties", "required", "additionalProperties", "items", "enum", "const", "pattern",
            "minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems", "format", "oneOf", "anyOf",
        ])
        for (keyword, rule) in schema {
            guard known.contains(keyword) else { throw Failure(path: path, reason: "unsupported keyword \(keyword)") }
            if applicators.contains(keyword), let map = rule as? [String: Any] {
                for (name, sub) in map { if let s = sub as? [String: Any] { try lint(s, "\(path)/\(keyword)/\(name)") } }
            } else if let sub = rule as? [String: Any], ["items", "additionalProperties"].contains(keyword) {
                try lint(sub, "\(path)/\(keyword)")
            } else if let list = rule as? [[String: Any]], ["oneOf", "anyOf"].contains(keyword) {
                for (i, sub) in list.enumerated() { try lint(sub, "\(path)/\(keyword)/\(i)") }
            }
        }
    }

    /// The names of every schema in proto-json/.
    public static func allSchemaNames() throws -> [String] {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("proto-json")
        return try FileManager.default.contentsOfDirectory(atPath: dir.path)
            .filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }

    /// Throws the first violation found.
    public func validate(_ instance: Any) throws { try check(instance, root, "$") }

    /// Parses bytes as JSON and validates them.
    public func validate(bytes: [UInt8]) throws {
        try validate(JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]))
    }

    private static let annotations: Set<String> = ["$schema", "$id", "title", "description", "$defs", "examples"]

    private func check(_ value: Any, _ schema: [String: Any], _ path: String) throws {
        func fail(_ reason: String) -> Failure { Failure(path: path, reason: reason) }
        for (keyword, rule) in schema where !Self.annotations.contains(keyword) {
            switch keyword {
            case "$ref":
                guard let ref = rule as? String, ref.hasPrefix("#/$defs/"),
                      let defs = root["$defs"] as? [String: Any],
                      let target = defs[String(ref.dropFirst(8))] as? [String: Any]
                else { throw fail("unresolvable $ref") }
                try check(value, target, path)
            case "type":
                let types = (rule as? [String]) ?? [(rule as? String) ?? ""]
                guard types.contains(where: { Self.matches(value, $0) }) else { throw fail("not of type \(types)") }
            case "properties":
                guard let object = value as? [String: Any], let props = rule as? [String: Any] else { continue }
                for (name, sub) in props {
                    if let v = object[name], let s = sub as? [String: Any] { try check(v, s, "\(path).\(name)") }
                }
            case "required":
                guard let object = value as? [String: Any] else { continue }
                for name in rule as? [String] ?? [] where object[name] == nil { throw fail("missing \(name)") }
            case "additionalProperties":
                guard let object = value as? [String: Any] else { continue }
                let known = Set((schema["properties"] as? [String: Any] ?? [:]).keys)
                for (name, v) in object where !known.contains(name) {
                    if let allowed = rule as? Bool {
                        if !allowed { throw fail("unexpected property \(name)") }
                    } else if let s = rule as? [String: Any] {
                        try check(v, s, "\(path).\(name)")
                    }
                }
            case "items":
                guard let array = value as? [Any], let s = rule as? [String: Any] else { continue }
                for (i, v) in array.enumerated() { try check(v, s, "\(path)[\(i)]") }
            case "enum":
                guard (rule as? [Any] ?? []).contains(where: { Self.equal($0, value) }) else { throw fail("not in enum") }
            case "const":
                guard Self.equal(rule, value) else { throw fail("not the constant") }
            case "pattern":
                guard let s = value as? String else { continue }
                guard s.range(of: rule as? String ?? "", options: .regularExpression) != nil else {
                    throw fail("does not match the pattern")
                }
            case "minLength", "maxLength":
                guard let s = value as? String, let n = rule as? Int else { continue }
                if keyword == "minLength" ? s.count < n : s.count > n { throw fail("\(keyword) \(n)") }
            case "minimum", "maximum":
                guard let x = Self.number(value), let n = Self.number(rule) else { continue }
                if keyword == "minimum" ? x < n : x > n { throw fail("\(keyword) \(n)") }
            case "minItems", "maxItems":
                guard let a = value as? [Any], let n = rule as? Int else { continue }
                if keyword == "minItems" ? a.count < n : a.count > n { throw fail("\(keyword) \(n)") }
            case "format":
                guard let s = value as? String else { continue }
                switch rule as? String {
                case "uuid": if UUID(uuidString: s) == nil { throw fail("not a uuid") }
                case "date-time":
                    let iso = try? Date.ISO8601FormatStyle(includingFractionalSeconds: s.contains(".")).parse(s)
                    if iso == nil { throw fail("not an RFC 3339 date-time") }
                default: throw fail("unsupported format \(rule)")
                }
            case "oneOf", "anyOf":
                let options = (rule as? [[String: Any]]) ?? []
                let passing = options.filter { (try? check(value, $0, path)) != nil }.count
                if keyword == "oneOf" ? passing != 1 : passing == 0 { throw fail("\(keyword): \(passing) match") }
            default:
                throw fail("schema uses unsupported keyword \(keyword)")
            }
        }
    }

    private static func matches(_ value: Any, _ type: String) -> Bool {
        switch type {
        case "null": return value is NSNull
        case "boolean": return isBool(value)
        case "object": return value is [String: Any]
        case "array": return value is [Any]
        case "string": return value is String
        case "integer": return !isBool(value) && number(value).map { $0 == $0.rounded() } == true
        case "number": return !isBool(value) && number(value) != nil
        default: return false
        }
    }

    private static func isBool(_ value: Any) -> Bool {
        // JSONSerialization's booleans are NSNumbers of ObjC type "c" (char).
        guard let n = value as? NSNumber else { return false }
        return String(cString: n.objCType) == "c"
    }

    private static func number(_ value: Any) -> Double? {
        guard !(value is String), let n = value as? NSNumber else { return nil }
        return n.doubleValue
    }

    private static func equal(_ a: Any, _ b: Any) -> Bool {
        (a as? NSObject)?.isEqual(b) ?? false
    }
}
