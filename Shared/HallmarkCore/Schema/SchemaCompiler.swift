import Foundation

/// Compiles schema objects into ``SchemaNode``s, refusing what ``JSONSchema`` does not check.
struct SchemaCompiler {
    /// Every document a `$ref` may name, by its `$id` (without fragment).
    let documents: [String: JSONValue]
    /// The `$id` of the document being compiled: relative references resolve against it.
    var base: String
    var resolving: [String] = []

    static let annotations: Set<String> = [
        "$schema", "$id", "$comment", "title", "description", "$defs", "examples", "default",
    ]

    mutating func compile(_ value: JSONValue, path: String) throws(JSONSchemaError) -> SchemaNode {
        if case .bool(let b) = value { return SchemaNode(b ? [] : [.never]) }
        guard let schema = value.object else { throw JSONSchemaError(path: path, reason: "a subschema must be an object") }
        func fail(_ reason: String) -> JSONSchemaError { JSONSchemaError(path: path, reason: reason) }
        var checks: [SchemaNode.Check] = []
        // `type` first, so later checks see the type they expect.
        if let rule = schema["type"] {
            let names = rule.array?.compactMap(\.string) ?? rule.string.map { [$0] } ?? []
            let kinds = names.compactMap(SchemaNode.Kind.init(rawValue:))
            guard !kinds.isEmpty, kinds.count == names.count else { throw fail("bad type") }
            checks.append(.types(SchemaNode.Kinds(kinds)))
        }
        let known = Set(schema["properties"]?.object?.keys.map { $0 } ?? [])
        for (keyword, rule) in schema.sorted(by: { $0.key < $1.key }) where keyword != "type" {
            let at = "\(path)/\(keyword)"
            switch keyword {
            case _ where Self.annotations.contains(keyword): continue
            case "$ref":
                guard let ref = rule.string, let (document, name) = resolve(ref),
                    let target = documents[document]?.object?["$defs"]?.object?[name]
                else { throw fail("unresolvable $ref") }
                let absolute = "\(document)#/$defs/\(name)"
                guard !resolving.contains(absolute) else { throw fail("recursive $ref") }
                resolving.append(absolute)
                let outer = base
                base = document
                // In place: the same checks in the same order as an `allOf` of one, one call less.
                checks += try compile(target, path: ref).checks
                base = outer
                resolving.removeLast()
            case "properties":
                guard let map = rule.object else { throw fail("properties must be an object") }
                var nodes: [String: SchemaNode] = [:]
                for (name, sub) in map { nodes[name] = try compile(sub, path: "\(at)/\(name)") }
                checks.append(.properties(nodes))
            case "required":
                guard let list = rule.array, case let names = list.compactMap(\.string), names.count == list.count else {
                    throw fail("required must list names")
                }
                checks.append(.required(names))
            case "additionalProperties":
                if rule == .bool(false) {
                    checks.append(.closed(known))
                } else if rule != .bool(true) {
                    checks.append(.additional(known, try compile(rule, path: at)))
                }
            case "propertyNames": checks.append(.propertyNames(try compile(rule, path: at)))
            case "minProperties", "maxProperties":
                let min = try Self.count(schema["minProperties"], 0, at),
                    max = try Self.count(schema["maxProperties"], Int.max, at)
                if keyword == "minProperties" || schema["minProperties"] == nil {
                    checks.append(.propertyCount(min: min, max: max))
                }
            case "items": checks.append(.items(try compile(rule, path: at)))
            case "minItems", "maxItems":
                let min = try Self.count(schema["minItems"], 0, at), max = try Self.count(schema["maxItems"], Int.max, at)
                if keyword == "minItems" || schema["minItems"] == nil { checks.append(.itemCount(min: min, max: max)) }
            case "uniqueItems": if rule == .bool(true) { checks.append(.uniqueItems) }
            case "enum":
                guard let values = rule.array else { throw fail("enum must be an array") }
                checks.append(.oneOfValues(values))
            case "const": checks.append(.oneOfValues([rule]))
            case "pattern":
                guard let source = rule.string else { throw fail("pattern must be a string") }
                do { checks.append(.pattern(try Pattern(source))) } catch { throw fail(error.description) }
            case "minLength", "maxLength":
                let min = try Self.count(schema["minLength"], 0, at), max = try Self.count(schema["maxLength"], Int.max, at)
                if keyword == "minLength" || schema["minLength"] == nil { checks.append(.length(min: min, max: max)) }
            case "minimum", "maximum":
                guard let bound = Bound(rule) else { throw fail("\(keyword) must be a number") }
                checks.append(keyword == "minimum" ? .minimum(bound) : .maximum(bound))
            case "format":
                switch rule.string {
                case "uuid": checks.append(.uuid)
                case "date-time": checks.append(.dateTime)
                default: throw fail("unsupported format")
                }
            case "contentEncoding":
                guard rule.string == "base64" else { throw fail("unsupported contentEncoding") }
                checks.append(.base64)
            case "contentMediaType": continue  // an annotation beside contentEncoding
            case "oneOf", "anyOf", "allOf":
                guard let list = rule.array, !list.isEmpty else { throw fail("\(keyword) must be a non-empty array") }
                var nodes: [SchemaNode] = []
                for (i, sub) in list.enumerated() { nodes.append(try compile(sub, path: "\(at)/\(i)")) }
                checks.append(keyword == "oneOf" ? .oneOf(nodes) : keyword == "anyOf" ? .anyOf(nodes) : .allOf(nodes))
            case "not": checks.append(.not(try compile(rule, path: at)))
            case "if":
                checks.append(
                    .conditional(
                        if: try compile(rule, path: at),
                        then: try schema["then"].map { v throws(JSONSchemaError) in try compile(v, path: "\(path)/then") },
                        else: try schema["else"].map { v throws(JSONSchemaError) in try compile(v, path: "\(path)/else") }))
            case "then", "else":
                guard schema["if"] != nil else { throw fail("\(keyword) without if") }
            default:
                throw fail("unsupported keyword \(keyword)")
            }
        }
        return SchemaNode(Self.withoutRepeatedBase64(checks))
    }

    /// `checks` without a canonical-base64 `pattern` that follows a `contentEncoding: base64`
    /// check: the two accept the same strings (`PatternTests` holds them equal), so the pattern
    /// could never fail, and running it is a second pass over every body.
    static func withoutRepeatedBase64(_ checks: [SchemaNode.Check]) -> [SchemaNode.Check] {
        guard let base64 = checks.firstIndex(where: { if case .base64 = $0 { true } else { false } }) else { return checks }
        return checks.enumerated().compactMap { i, check in
            if i > base64, case .pattern(let pattern) = check, pattern.source == Pattern.canonicalBase64 { return nil }
            return check
        }
    }

    /// The document and definition name a `$ref` names: `#/$defs/x` in this document, or
    /// `other.json#/$defs/x` resolved against this document's `$id` (RFC 3986), as JSON Schema
    /// 2020-12 resolves them. Only `$defs` entries can be named.
    func resolve(_ ref: String) -> (document: String, name: String)? {
        Self.resolve(ref, against: base)
    }

    static func resolve(_ ref: String, against base: String) -> (document: String, name: String)? {
        guard let hash = ref.firstIndex(of: "#") else { return nil }
        let fragment = ref[ref.index(after: hash)...], location = String(ref[..<hash])
        guard fragment.hasPrefix("/$defs/"), case let name = String(fragment.dropFirst(7)), !name.isEmpty,
            !name.contains("/")
        else { return nil }
        if location.isEmpty { return (base, name) }
        guard let url = URL(string: location, relativeTo: URL(string: base)) else { return nil }
        return (url.absoluteString, name)
    }

    static func count(_ value: JSONValue?, _ fallback: Int, _ path: String) throws(JSONSchemaError) -> Int {
        guard let value else { return fallback }
        guard let n = value.integer, n >= 0 else { throw JSONSchemaError(path: path, reason: "must be a count") }
        return n
    }
}
