extension JSONSchema {
    /// `document` made self-contained, as JSON Schema 2020-12 bundling does: every definition
    /// it names in `referenced` documents (and every one those name) is copied into its own
    /// `$defs`, and each `$ref` rewritten to `#/$defs/<name>`. Validates exactly as the
    /// original; tools that walk one document (the tests' violation derivation, say) read it.
    /// - Throws: ``JSONSchemaError`` for a `$ref` that names nothing, or two different
    ///   definitions of one name.
    public static func bundle(_ document: JSONValue, referenced: [JSONValue]) throws(JSONSchemaError) -> JSONValue {
        guard case .object(var root) = document else { throw JSONSchemaError(path: "#", reason: "not an object") }
        var documents: [String: JSONValue] = [:]
        for other in referenced {
            if let id = other["$id"]?.string { documents[id] = other }
        }
        let base = root["$id"]?.string ?? ""
        documents[base] = document
        let own = root["$defs"]?.object ?? [:]
        var bundler = Bundler(documents: documents, defs: own, origin: own.mapValues { _ in base })
        root = try bundler.rewrite(.object(root), base: base).object ?? root
        var pending = Array(bundler.defs.keys)
        var done = Set<String>()
        // A copied definition may name others; rewrite until nothing new arrives.
        while let name = pending.popLast() {
            guard done.insert(name).inserted, let def = bundler.defs[name] else { continue }
            let before = Set(bundler.defs.keys)
            bundler.defs[name] = try bundler.rewrite(def, base: bundler.origin[name] ?? base)
            pending += Set(bundler.defs.keys).subtracting(before)
        }
        if !bundler.defs.isEmpty { root["$defs"] = .object(bundler.defs) }
        return .object(root)
    }

    private struct Bundler {
        let documents: [String: JSONValue]
        var defs: [String: JSONValue]
        /// The document each copied definition came from: its own `$ref`s resolve against it.
        var origin: [String: String]

        mutating func rewrite(_ value: JSONValue, base: String) throws(JSONSchemaError) -> JSONValue {
            switch value {
            case .array(let items):
                var out: [JSONValue] = []
                for item in items { out.append(try rewrite(item, base: base)) }
                return .array(out)
            case .object(let members):
                var out: [String: JSONValue] = [:]
                for (key, member) in members {
                    if key == "$ref", let ref = member.string {
                        out[key] = .string(try local(ref, base: base))
                    } else if key == "$defs" {
                        out[key] = member  // rewritten one by one by `bundle`
                    } else {
                        out[key] = try rewrite(member, base: base)
                    }
                }
                return .object(out)
            default: return value
            }
        }

        mutating func local(_ ref: String, base: String) throws(JSONSchemaError) -> String {
            guard let (document, name) = SchemaCompiler.resolve(ref, against: base),
                let def = documents[document]?["$defs"]?[name]
            else { throw JSONSchemaError(path: ref, reason: "unresolvable $ref") }
            if defs[name] != nil {
                guard origin[name] == document else {
                    throw JSONSchemaError(path: ref, reason: "two definitions named \(name)")
                }
                return "#/$defs/\(name)"
            }
            defs[name] = def
            origin[name] = document
            return "#/$defs/\(name)"
        }
    }
}
