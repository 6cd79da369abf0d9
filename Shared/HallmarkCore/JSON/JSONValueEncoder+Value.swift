extension JSONValueEncoder {
    /// `value` as a ``JSONValue``: the tree ``encode(_:)`` would write, for a caller that checks
    /// it against a schema or adds members before writing it once.
    /// - Throws: ``Unsupported`` for a floating-point number or a date anywhere in it.
    static func value<T: Encodable>(_ value: T) throws -> JSONValue {
        try node(for: value, at: nil).value
    }
}

extension JSONValueEncoder.Node {
    /// The node as a value; a key written twice keeps its last value, as ``write(into:)`` does.
    var value: JSONValue {
        switch self {
        case .value(let v):
            return v
        case .object(let o):
            var members: [String: JSONValue] = [:]
            members.reserveCapacity(o.members.count)
            for (key, node) in o.members { members[key] = node.value }
            return .object(members)
        case .array(let a):
            return .array(a.elements.map(\.value))
        case .deferred(let e):
            return (e.node ?? .object(JSONValueEncoder.Members())).value
        }
    }
}
