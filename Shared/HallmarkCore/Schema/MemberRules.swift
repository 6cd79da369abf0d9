/// An object's `properties` and `required` (and `additionalProperties: false`), checked in
/// one pass over its members: one lookup per member instead of one per rule and member.
///
/// The separate checks ran in keyword order (`additionalProperties`, then `properties`, then
/// `required`) and reported the first violation; so does this: a member the schema does not
/// name, then a member that breaks its subschema, then the first required member missing.
final class MemberRules: Sendable {
    struct Rule: Sendable {
        let node: SchemaNode
        let required: Bool
    }

    /// The named properties by the UTF-8 length of their names, then by name: a schema's names
    /// mostly differ in length, so a member's rule is found by its length and one comparison,
    /// where a dictionary hashed every member's name (8% of a token request's check).
    let rules: [[(name: String, rule: Rule)]]
    let required: [String]
    let closed: Bool

    init(properties: [String: SchemaNode], required: [String], closed: Bool) {
        self.required = required.uniqued()
        let names = Set(required)
        var rules = [[(name: String, rule: Rule)]](repeating: [], count: (properties.keys.map(\.utf8.count).max() ?? 0) + 1)
        for (name, node) in properties.sorted(by: { $0.key < $1.key }) {
            rules[name.utf8.count].append((name, Rule(node: node, required: names.contains(name))))
        }
        self.rules = rules
        self.closed = closed
    }

    /// The rule of the property `name`, if the schema names it.
    func rule(_ name: String) -> Rule? {
        let length = name.utf8.count
        guard length < rules.count else { return nil }
        let candidates = rules[length]
        for i in candidates.indices where candidates[i].name == name { return candidates[i].rule }
        return nil
    }

    /// The first violation (see `SchemaNode.check(_:detailed:)`).
    func check(_ members: [String: JSONValue], detailed: Bool) -> SchemaViolation? {
        var invalid: SchemaViolation?
        var present = 0
        for (name, member) in members {
            guard let rule = rule(name) else {
                if closed {
                    guard detailed else { return .unnamed }
                    return SchemaViolation(path: "$", reason: "has a member not in the schema (\(SchemaNode.safeName(name)))")
                }
                continue
            }
            if rule.required { present += 1 }
            if invalid == nil, let v = rule.node.check(member, detailed: detailed) {
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

extension Array where Element: Hashable {
    /// The elements without repeats, first occurrences kept in order.
    fileprivate func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
