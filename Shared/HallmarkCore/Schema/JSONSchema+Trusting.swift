extension JSONSchema {
    /// This schema with the top-level members `names` taken as already checked: they still
    /// count as present for `required`, and a member `additionalProperties: false` refuses is
    /// still refused, but their own subschemas are not run.
    ///
    /// For a batch carrier's items (DESIGN §2): the carrier's schema holds each item's
    /// `schema`, `id` and `produced_at` to the same rules as the item's own schema, so an item
    /// of a carrier that passed need not be held to them twice (a fifth of a token request's
    /// check, and an id and a time parsed again). Only members a fused `properties` rule
    /// describes are trusted; any other rule on them (in a `oneOf`, say) still runs.
    public func trusting(_ names: Set<String>) -> JSONSchema {
        let checks = root.checks.map { check -> SchemaNode.Check in
            guard case .members(let rules) = check else { return check }
            return .members(rules.trusting(names))
        }
        return JSONSchema(title: title, root: SchemaNode(checks))
    }
}
