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

    let rules: [String: Rule]
    let required: [String]
    let closed: Bool

    init(properties: [String: SchemaNode], required: [String], closed: Bool) {
        self.required = required.uniqued()
        let names = Set(required)
        rules = properties.reduce(into: [:]) { rules, p in rules[p.key] = Rule(node: p.value, required: names.contains(p.key)) }
        self.closed = closed
    }

    /// The first violation (see `SchemaNode.check(_:detailed:)`).
    func check(_ members: [String: JSONValue], detailed: Bool) -> SchemaViolation? {
        var invalid: SchemaViolation?
        var present = 0
        for (name, member) in members {
            guard let rule = rules[name] else {
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
