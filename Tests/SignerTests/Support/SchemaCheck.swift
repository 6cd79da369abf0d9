import Foundation

/// Validates produced messages against `proto-json/`. A small JSON Schema 2020-12 subset
/// (type, const, enum, pattern, minLength, required, properties, additionalProperties,
/// allOf, if/then, not) until the shared `JSONSchemaValidator` lands on main.
enum SchemaCheck {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func schema(_ name: String) throws -> [String: Any] {
        let url = SignerHarness.root.appendingPathComponent("proto-json/\(name).json")
        return try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
    }

    static func validate(_ instance: Any, against name: String) throws {
        try check(instance, try schema(name), "$")
    }

    static func check(_ value: Any, _ schema: [String: Any], _ path: String) throws {
        func fail(_ why: String) -> Failure { Failure(description: "\(path): \(why)") }
        if let type = schema["type"] as? String, !matches(value, type: type) { throw fail("not \(type)") }
        if let c = schema["const"], !equal(c, value) { throw fail("not the constant") }
        if let e = schema["enum"] as? [Any], !e.contains(where: { equal($0, value) }) { throw fail("not in enum") }
        if let s = value as? String {
            if let p = schema["pattern"] as? String, s.range(of: p, options: .regularExpression) == nil {
                throw fail("does not match \(p)")
            }
            if let m = schema["minLength"] as? Int, s.count < m { throw fail("shorter than \(m)") }
        }
        if let object = value as? [String: Any] {
            for name in schema["required"] as? [String] ?? [] where object[name] == nil {
                throw fail("missing \(name)")
            }
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for (name, v) in object {
                if let sub = properties[name] as? [String: Any] {
                    try check(v, sub, "\(path).\(name)")
                } else if let extra = schema["additionalProperties"] as? [String: Any] {
                    try check(v, extra, "\(path).\(name)")
                } else if schema["additionalProperties"] as? Bool == false {
                    throw fail("unexpected \(name)")
                }
            }
        }
        for sub in schema["allOf"] as? [[String: Any]] ?? [] { try check(value, sub, path) }
        if let condition = schema["if"] as? [String: Any], (try? check(value, condition, path)) != nil,
           let then = schema["then"] as? [String: Any] {
            try check(value, then, path)
        }
        if let not = schema["not"] as? [String: Any], (try? check(value, not, path)) != nil {
            throw fail("matches a forbidden schema")
        }
    }

    static func matches(_ value: Any, type: String) -> Bool {
        switch type {
        case "object": return value is [String: Any]
        case "array": return value is [Any]
        case "string": return value is String
        case "integer": return value is Int
        case "boolean": return value is Bool
        default: return true
        }
    }

    static func equal(_ a: Any, _ b: Any) -> Bool {
        (a as? NSObject)?.isEqual(b) ?? false
    }
}
