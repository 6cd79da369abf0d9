extension SchemaNode {
    /// A ``Check`` as the validator runs it: each payload is plain data or a ``Borrowed``
    /// part, so a step is read and run without retaining anything that threads share.
    enum Step: Sendable {
        case types(Kinds)
        case properties(Borrowed<Shared<[String: Borrowed<SchemaNode>]>>)
        case required(Borrowed<RequiredNames>)
        case closed(Borrowed<Shared<Set<String>>>)
        case members(Borrowed<MemberRules>)
        case additional(Borrowed<Shared<Set<String>>>, Borrowed<SchemaNode>)
        case propertyNames(Borrowed<SchemaNode>)
        case propertyCount(min: Int, max: Int)
        case items(Borrowed<SchemaNode>)
        case itemCount(min: Int, max: Int)
        case uniqueItems
        case oneOfValues(Borrowed<Shared<[JSONValue]>>)
        /// An `enum` or `const` of strings only (schema names, reasons): one hash, where
        /// comparing a value with each retained the constants' shared text.
        case oneOfStrings(Borrowed<Shared<Set<String>>>)
        case pattern(Borrowed<Shared<Pattern>>)
        case length(min: Int, max: Int)
        case minimum(Borrowed<Shared<Bound>>)
        case maximum(Borrowed<Shared<Bound>>)
        case uuid
        case dateTime
        case base64
        /// `oneOf`, `anyOf` and `allOf` name their subschemas' range of ``children``.
        case oneOf(Range<Int>)
        case anyOf(Range<Int>)
        case allOf(Range<Int>)
        case not(Borrowed<SchemaNode>)
        case conditional(if: Borrowed<SchemaNode>, then: Borrowed<SchemaNode>?, else: Borrowed<SchemaNode>?)
        case never
    }

    /// `checks` as steps, with the children their `oneOf`, `anyOf` and `allOf` name and every
    /// object the steps borrow.
    static func lower(
        _ checks: [Check]
    ) -> (steps: [Step], children: [Borrowed<SchemaNode>], owned: [any AnyObject & Sendable]) {
        var children: [Borrowed<SchemaNode>] = []
        var owned: [any AnyObject & Sendable] = []
        func borrow<Object: AnyObject & Sendable>(_ object: Object) -> Borrowed<Object> {
            owned.append(object)
            return Borrowed(object)
        }
        func share<Value: Sendable>(_ value: Value) -> Borrowed<Shared<Value>> { borrow(Shared(value)) }
        func range(_ nodes: [SchemaNode]) -> Range<Int> {
            let start = children.count
            children += nodes.map(borrow)
            return start..<children.count
        }
        let steps = checks.map { check -> Step in
            switch check {
            case .types(let kinds): .types(kinds)
            case .properties(let map): .properties(share(map.mapValues(borrow)))
            case .required(let names): .required(borrow(RequiredNames(names)))
            case .closed(let known): .closed(share(known))
            case .members(let rules): .members(borrow(rules))
            case .additional(let known, let node): .additional(share(known), borrow(node))
            case .propertyNames(let node): .propertyNames(borrow(node))
            case .propertyCount(let min, let max): .propertyCount(min: min, max: max)
            case .items(let node): .items(borrow(node))
            case .itemCount(let min, let max): .itemCount(min: min, max: max)
            case .uniqueItems: .uniqueItems
            case .oneOfValues(let values):
                if case let strings = values.compactMap(\.string), strings.count == values.count {
                    .oneOfStrings(share(Set(strings)))
                } else {
                    .oneOfValues(share(values))
                }
            case .pattern(let pattern): .pattern(share(pattern))
            case .length(let min, let max): .length(min: min, max: max)
            case .minimum(let bound): .minimum(share(bound))
            case .maximum(let bound): .maximum(share(bound))
            case .uuid: .uuid
            case .dateTime: .dateTime
            case .base64: .base64
            case .oneOf(let nodes): .oneOf(range(nodes))
            case .anyOf(let nodes): .anyOf(range(nodes))
            case .allOf(let nodes): .allOf(range(nodes))
            case .not(let node): .not(borrow(node))
            case .conditional(let condition, let then, let otherwise):
                .conditional(if: borrow(condition), then: then.map(borrow), else: otherwise.map(borrow))
            case .never: .never
            }
        }
        return (steps, children, owned)
    }
}
