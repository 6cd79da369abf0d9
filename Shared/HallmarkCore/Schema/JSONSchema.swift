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
/// `anyOf`, `allOf`, `not`, `if`/`then`/`else` and `$ref` to a `$defs` entry of this document
/// or of a referenced one (`common/envelope.json#/$defs/uuid`). Annotations:
/// `$schema`, `$id`, `$comment`, `title`, `description`, `$defs`, `examples`, `default`.
/// An integer is a number written without fraction or exponent.
public struct JSONSchema: Sendable {
    /// The schema's title (its message schema name, for Hallmark's).
    public let title: String
    let root: SchemaNode

    /// Compiles a schema document.
    /// - Parameters:
    ///   - document: the schema.
    ///   - referenced: the documents its `$ref`s may name besides itself, each known by its
    ///     `$id` (a `$ref` such as `common/envelope.json#/$defs/uuid` resolves against the
    ///     schema's own `$id`).
    /// - Throws: ``JSONSchemaError`` for an unsupported keyword, a malformed rule or a `$ref`
    ///   that names no definition.
    public init(_ document: JSONValue, referenced: [JSONValue] = []) throws(JSONSchemaError) {
        guard let object = document.object else { throw JSONSchemaError(path: "#", reason: "not an object") }
        title = object["title"]?.string ?? ""
        let base = object["$id"]?.string ?? ""
        var documents: [String: JSONValue] = [base: document]
        for other in referenced {
            guard let id = other.object?["$id"]?.string, !id.isEmpty else {
                throw JSONSchemaError(path: "#", reason: "a referenced document has no $id")
            }
            documents[id] = documents[id] ?? other
        }
        var compiler = SchemaCompiler(documents: documents, base: base)
        root = try compiler.compile(document, path: "#")
        // A definition nothing refers to is still checked, so a typo in one never lies dormant.
        // Only this document's: a shared document is checked once, compiled on its own.
        for (name, def) in (object["$defs"]?.object ?? [:]).sorted(by: { $0.key < $1.key }) {
            _ = try compiler.compile(def, path: "#/$defs/\(name)")
        }
    }

    init(title: String, root: SchemaNode) {
        self.title = title
        self.root = root
    }

    /// Compiles a schema from its JSON text, with the texts of the documents it refers to.
    public init(json: String, referenced: [String] = []) throws(JSONSchemaError) {
        func parse(_ text: String) throws(JSONSchemaError) -> JSONValue {
            do { return try JSONReader.parse(Array(text.utf8)) } catch {
                throw JSONSchemaError(path: "#", reason: "not JSON: \(error.reason)")
            }
        }
        var others: [JSONValue] = []
        for text in referenced { others.append(try parse(text)) }
        try self.init(try parse(json), referenced: others)
    }

    /// The first violation, or nil when `value` is valid.
    public func validate(_ value: JSONValue) -> SchemaViolation? {
        // Borrowed, as the nodes below borrow theirs: threads share the root.
        Borrowed(root).with { $0.check(value) }
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

    /// The same violation one step further down: `$.x` under `.a` is `$.a.x`. The unnamed
    /// one stays unnamed, its step never written.
    func under(_ step: @autoclosure () -> String) -> SchemaViolation {
        isUnnamed ? self : SchemaViolation(path: "$" + step() + path.dropFirst(), reason: reason)
    }

    /// What a check reports where only a failure's fact is read (see `SchemaNode.check`):
    /// no path, no reason, nothing built.
    static let unnamed = SchemaViolation(path: "$", reason: "")

    var isUnnamed: Bool { reason.isEmpty }
}

/// A schema that cannot be compiled.
public struct JSONSchemaError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "schema \(path): \(reason)" }
}
