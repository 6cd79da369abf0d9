/// An object's `properties` and `required` (and `additionalProperties: false`), checked in
/// one pass over its members: one lookup per member instead of one per rule and member.
///
/// The separate checks ran in keyword order (`additionalProperties`, then `properties`, then
/// `required`) and reported the first violation; so does this: a member the schema does not
/// name, then a member that breaks its subschema, then the first required member missing.
final class MemberRules: Sendable {
    /// A named property: its name, its subschema, and whether it is required.
    struct Rule: Sendable {
        let name: String
        let node: Borrowed<SchemaNode>
        let required: Bool
    }

    /// The named properties by the UTF-8 length of their names, then by name: a schema's names
    /// mostly differ in length, so a member's rule is found by its length and one comparison,
    /// where a dictionary hashed every member's name (8% of a token request's check). One
    /// flat array, with each length's range in `byLength`: an inner array per length was
    /// retained on every lookup, from every validating thread at once.
    let rules: [Rule]
    let byLength: [Range<Int>]
    let required: [String]
    let closed: Bool
    /// The subschemas the rules borrow.
    let nodes: [SchemaNode]

    init(properties: [String: SchemaNode], required: [String], closed: Bool) {
        self.required = required.uniqued()
        let names = Set(required)
        let sorted = properties.sorted { ($0.key.utf8.count, $0.key) < ($1.key.utf8.count, $1.key) }
        nodes = sorted.map(\.value)
        rules = sorted.map { Rule(name: $0.key, node: Borrowed($0.value), required: names.contains($0.key)) }
        var byLength = [Range<Int>](repeating: 0..<0, count: (properties.keys.map(\.utf8.count).max() ?? 0) + 1)
        for length in byLength.indices {
            let start = rules.firstIndex { $0.name.utf8.count >= length } ?? rules.count
            let end = rules[start...].firstIndex { $0.name.utf8.count > length } ?? rules.count
            byLength[length] = start..<end
        }
        self.byLength = byLength
        self.closed = closed
    }

    /// The index in ``rules`` of the property `name`, if the schema names it.
    func rule(_ name: String) -> Int? {
        let length = name.utf8.count
        guard length < byLength.count else { return nil }
        for i in byLength[length] where rules[i].name == name { return i }
        return nil
    }

    /// The first violation (see `SchemaNode.check(_:detailed:)`).
    func check(_ members: [String: JSONValue], detailed: Bool) -> SchemaViolation? {
        var invalid: SchemaViolation?
        var present = 0
        for (name, member) in members {
            guard let i = rule(name) else {
                if closed {
                    guard detailed else { return .unnamed }
                    return SchemaViolation(path: "$", reason: "has a member not in the schema (\(SchemaNode.safeName(name)))")
                }
                continue
            }
            if rules[i].required { present += 1 }
            if invalid == nil, let v = rules[i].node.with({ $0.check(member, detailed: detailed) }) {
                invalid = v.under(".\(SchemaNode.safeName(name))")
            }
        }
        if let invalid { return invalid }
        guard present < required.count, let missing = required.first(where: { members[$0] == nil }) else { return nil }
        return detailed ? SchemaViolation(path: "$", reason: "lacks required member \(missing)") : .unnamed
    }

    /// `checks` with each `properties` + `required` pair that sits side by side (keyword
    /// order puts nothing between them but `propertyNames`) replaced by one ``MemberRules``
    /// check, taking in an `additionalProperties: false` just before it. Only when every
    /// required member is a named property: a required name the schema does not describe
    /// keeps the separate checks.
    static func fuse(_ checks: [SchemaNode.Check]) -> [SchemaNode.Check] {
        guard let at = checks.firstIndex(where: { if case .properties = $0 { true } else { false } }),
            case .properties(let properties) = checks[at]
        else { return checks }
        var required: [String] = []
        var end = at + 1
        if end < checks.count, case .required(let names) = checks[end] {
            guard names.allSatisfy({ properties[$0] != nil }) else { return checks }
            required = names
            end += 1
        }
        var start = at
        var closed = false
        if at > 0, case .closed(let known) = checks[at - 1], known == Set(properties.keys) {
            closed = true
            start = at - 1
        }
        var fused = checks
        fused.replaceSubrange(
            start..<end,
            with: [
                .members(
                    MemberRules(
                        properties: properties, required: required,
                        closed: closed))
            ])
        return fused
    }
}

extension MemberRules {
    /// The same rules with the subschemas of `names` replaced by one that accepts anything.
    func trusting(_ names: Set<String>) -> MemberRules {
        var properties: [String: SchemaNode] = [:]
        for (rule, node) in zip(rules, nodes) { properties[rule.name] = names.contains(rule.name) ? SchemaNode([]) : node }
        return MemberRules(properties: properties, required: required, closed: closed)
    }
}
