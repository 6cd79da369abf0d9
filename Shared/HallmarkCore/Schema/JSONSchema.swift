import Foundation

/// A JSON Schema (2020-12) compiled once and checked against ``JSONValue``s: the runtime
/// validates every input against its message's schema, so inputs are exactly as strict as
/// the schemas in `proto-json/`.
///
/// It refuses any keyword it does not check, so a schema can never pass by leaning on an
/// unchecked one. Checked: `type`, `properties`, `required`, `additionalProperties`,
/// `propertyNames`, `minProperties`, `maxProperties`, `items`, `minItems`, `maxItems`,
/// `uniqueItems`, `enum`, `const`, `pattern` (see ``Pattern``), `minLength`, `maxLength`
/// (Unicode scalars), `minimum`, `maximum`, `format` (`uuid`; `date-time` as Hallmark's strict
/// UTC form, see ``Timestamp``), `contentEncoding: base64` (canonical, padded), `oneOf`,
/// `anyOf`, `allOf`, `not`, `if`/`then`/`else` and `$ref` to `#/$defs/…`. Annotations:
/// `$schema`, `$id`, `$comment`, `title`, `description`, `$defs`, `examples`, `default`.
/// An integer is a number written without fraction or exponent.
public struct JSONSchema: Sendable {
    /// The schema's title (its message schema name, for Hallmark's).
    public let title: String
    let root: SchemaNode

    /// Compiles a schema document.
    /// - Throws: ``JSONSchemaError`` for an unsupported keyword or a malformed rule.
    public init(_ document: JSONValue) throws(JSONSchemaError) {
        guard let object = document.object else { throw JSONSchemaError(path: "#", reason: "not an object") }
        title = object["title"]?.string ?? ""
        let defs = object["$defs"]?.object ?? [:]
        var compiler = SchemaCompiler(defs: defs)
        root = try compiler.compile(document, path: "#")
        // A definition nothing refers to is still checked, so a typo in one never lies dormant.
        for (name, def) in defs.sorted(by: { $0.key < $1.key }) { _ = try compiler.compile(def, path: "#/$defs/\(name)") }
    }

    /// Compiles a schema from its JSON text.
    public init(json: String) throws(JSONSchemaError) {
        let value: JSONValue
        do { value = try JSONReader.parse(Array(json.utf8)) } catch {
            throw JSONSchemaError(path: "#", reason: "not JSON: \(error.reason)")
        }
        try self.init(value)
    }

    /// The first violation, or nil when `value` is valid.
    public func validate(_ value: JSONValue) -> SchemaViolation? {
        root.check(value)
    }
}

/// Where and why a value breaks its schema. Names the path and the rule, never the value.
public struct SchemaViolation: Error, Sendable, Equatable, CustomStringConvertible {
    /// A JSON path such as `$.camera_token.nonce` or `$.table_references[1]`.
    public let path: String
    /// The rule broken, such as `does not match the pattern`.
    public let reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }

    /// The same violation one step further down: `$.x` under `.a` is `$.a.x`.
    func under(_ step: String) -> SchemaViolation {
        SchemaViolation(path: "$" + step + path.dropFirst(), reason: reason)
    }
}

/// A schema that cannot be compiled.
public struct JSONSchemaError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "schema \(path): \(reason)" }
}
