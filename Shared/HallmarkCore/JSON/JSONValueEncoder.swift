import Foundation

/// Encodes an `Encodable` straight to JSON bytes: the same bytes as
/// `JSONEncoder` with `.sortedKeys` and `.withoutEscapingSlashes` (nil optionals left out,
/// `Data` as base64, keys in byte order), at a fraction of its cost.
///
/// It writes no floating-point number: `JSONEncoder`'s shortest round-trip formatting is not
/// reproduced here, so a `Double`, `Float` or `Date` throws ``Unsupported`` and
/// ``JSONCoding/encode(_:)`` hands that value to `JSONEncoder`. (`JSONCodingTests` holds the
/// two encoders' bytes equal over every message example.)
final class JSONValueEncoder: Encoder {
    /// A value this encoder leaves to `JSONEncoder`.
    struct Unsupported: Error {}

    /// What has been encoded at one level: a finished value, or a container still open to
    /// writes (containers are handed out before they are filled).
    enum Node {
        case value(JSONValue)
        case object(Members)
        case array(Elements)
        case deferred(JSONValueEncoder)

        /// Writes the node as ``JSONWriter`` writes the same value.
        func write(into out: inout [UInt8]) {
            switch self {
            case .value(let v):
                JSONWriter.write(v, into: &out)
            case .object(let o):
                // Members in key order; a key written twice keeps its last value.
                let order = o.members.indices.sorted { a, b in
                    let (x, y) = (o.members[a].key, o.members[b].key)
                    return x == y ? a < b : JSONWriter.precedes(x, y)
                }
                let kept = order.indices.lazy.filter { n in
                    n + 1 == order.count || o.members[order[n + 1]].key != o.members[order[n]].key
                }.map { order[$0] }
                JSONWriter.writeObject(kept, into: &out, key: { o.members[$0].key }) { i, out in
                    o.members[i].node.write(into: &out)
                }
            case .array(let a):
                JSONWriter.writeArray(a.elements, into: &out) { e, out in e.write(into: &out) }
            case .deferred(let e):
                (e.node ?? .object(Members())).write(into: &out)
            }
        }
    }

    /// An object's members in the order they were written (a list, not a dictionary: no
    /// hashing per member; the writer sorts them once).
    final class Members {
        var members: [(key: String, node: Node)] = []
        /// Handed out to a second keyed container (a message's header and body write one
        /// object): a key written twice then keeps its last value, as `JSONEncoder` does.
        var reopened = false

        func set(_ key: String, _ node: Node) {
            if reopened, let i = members.firstIndex(where: { $0.key == key }) {
                members[i].node = node
            } else {
                members.append((key, node))
            }
        }
    }
    final class Elements { var elements: [Node] = [] }

    /// Where this value is (built as an array only when asked for).
    let path: CodingPath?
    var codingPath: [any CodingKey] { CodingPath.array(path, nil) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    private(set) var node: Node?

    init(path: CodingPath? = nil) { self.path = path }

    /// The bytes of `value`.
    /// - Throws: ``Unsupported`` for a floating-point number or a date anywhere in it.
    static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(512)
        try node(for: value, at: nil).write(into: &out)
        return out
    }

    /// `value` as a node, with `JSONEncoder`'s special cases (compared by type, which costs
    /// less than a cast per value).
    static func node<T: Encodable>(for value: T, at path: @autoclosure () -> CodingPath?) throws -> Node {
        if T.self == String.self { return .value(.string(value as! String)) }
        if T.self == Data.self { return .value(.string((value as! Data).base64EncodedString())) }
        if T.self == URL.self { return .value(.string((value as! URL).absoluteString)) }
        if T.self == Date.self || T.self == Double.self || T.self == Float.self || T.self == Decimal.self { throw Unsupported() }
        let encoder = JSONValueEncoder(path: path())
        try value.encode(to: encoder)
        return encoder.node ?? .object(Members())
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let members: Members
        if case .object(let open)? = node {
            members = open
            open.reopened = true
        } else {
            members = Members()
            node = .object(members)
        }
        return KeyedEncodingContainer(Keyed(members: members, path: path))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let elements: Elements
        if case .array(let open)? = node {
            elements = open
        } else {
            elements = Elements()
            node = .array(elements)
        }
        return Unkeyed(elements: elements, path: path)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }
}

extension JSONValueEncoder: SingleValueEncodingContainer {
    private func set(_ value: JSONValue) { node = .value(value) }

    func encodeNil() { set(.null) }
    func encode(_ value: Bool) { set(.bool(value)) }
    func encode(_ value: String) { set(.string(value)) }
    func encode(_ value: Double) throws { throw Unsupported() }
    func encode(_ value: Float) throws { throw Unsupported() }
    func encode(_ value: Int) { set(.number(String(value))) }
    func encode(_ value: Int8) { set(.number(String(value))) }
    func encode(_ value: Int16) { set(.number(String(value))) }
    func encode(_ value: Int32) { set(.number(String(value))) }
    func encode(_ value: Int64) { set(.number(String(value))) }
    func encode(_ value: UInt) { set(.number(String(value))) }
    func encode(_ value: UInt8) { set(.number(String(value))) }
    func encode(_ value: UInt16) { set(.number(String(value))) }
    func encode(_ value: UInt32) { set(.number(String(value))) }
    func encode(_ value: UInt64) { set(.number(String(value))) }
    func encode<T: Encodable>(_ value: T) throws { node = try Self.node(for: value, at: path) }
}

extension JSONValueEncoder {
    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let members: Members
        let path: CodingPath?
        var codingPath: [any CodingKey] { CodingPath.array(path, nil) }

        private func set(_ node: Node, _ key: Key) { members.set(key.stringValue, node) }

        mutating func encodeNil(forKey key: Key) { set(.value(.null), key) }
        mutating func encode(_ value: Bool, forKey key: Key) { set(.value(.bool(value)), key) }
        mutating func encode(_ value: String, forKey key: Key) { set(.value(.string(value)), key) }
        mutating func encode(_ value: Double, forKey key: Key) throws { throw Unsupported() }
        mutating func encode(_ value: Float, forKey key: Key) throws { throw Unsupported() }
        mutating func encode(_ value: Int, forKey key: Key) { set(.value(.number(String(value))), key) }
        mutating func encode(_ value: Int8, forKey key: Key) { set(.value(.number(String(value))), key) }
        mutating func encode(_ value: Int16, forKey key: Key) { set(.value(.number(String(value))), key) }
        mutating func encode(_ value: Int32, forKey key: Key) { set(.value(.number(String(value))), key) }
        mutating func encode(_ value: Int64, forKey key: Key) { set(.value(.number(String(value))), key) }
        mutating func encode(_ value: UInt, forKey key: Key) { set(.value(.number(String(value))), key) }
        mutating func encode(_ value: UInt8, forKey key: Key) { set(.value(.number(String(value))), key) }
        mutating func encode(_ value: UInt16, forKey key: Key) { set(.value(.number(String(value))), key) }
        mutating func encode(_ value: UInt32, forKey key: Key) { set(.value(.number(String(value))), key) }
        mutating func encode(_ value: UInt64, forKey key: Key) { set(.value(.number(String(value))), key) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            set(try JSONValueEncoder.node(for: value, at: CodingPath(path, key)), key)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type,
            forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            let nested = Members()
            set(.object(nested), key)
            return KeyedEncodingContainer(Keyed<NestedKey>(members: nested, path: CodingPath(path, key)))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let nested = Elements()
            set(.array(nested), key)
            return Unkeyed(elements: nested, path: CodingPath(path, key))
        }

        mutating func superEncoder() -> any Encoder {
            let encoder = JSONValueEncoder(path: path)
            members.set("super", .deferred(encoder))
            return encoder
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            let encoder = JSONValueEncoder(path: CodingPath(path, key))
            set(.deferred(encoder), key)
            return encoder
        }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let elements: Elements
        let path: CodingPath?
        var codingPath: [any CodingKey] { CodingPath.array(path, nil) }

        var count: Int { elements.elements.count }
        private func append(_ value: JSONValue) { elements.elements.append(.value(value)) }

        mutating func encodeNil() { append(.null) }
        mutating func encode(_ value: Bool) { append(.bool(value)) }
        mutating func encode(_ value: String) { append(.string(value)) }
        mutating func encode(_ value: Double) throws { throw Unsupported() }
        mutating func encode(_ value: Float) throws { throw Unsupported() }
        mutating func encode(_ value: Int) { append(.number(String(value))) }
        mutating func encode(_ value: Int8) { append(.number(String(value))) }
        mutating func encode(_ value: Int16) { append(.number(String(value))) }
        mutating func encode(_ value: Int32) { append(.number(String(value))) }
        mutating func encode(_ value: Int64) { append(.number(String(value))) }
        mutating func encode(_ value: UInt) { append(.number(String(value))) }
        mutating func encode(_ value: UInt8) { append(.number(String(value))) }
        mutating func encode(_ value: UInt16) { append(.number(String(value))) }
        mutating func encode(_ value: UInt32) { append(.number(String(value))) }
        mutating func encode(_ value: UInt64) { append(.number(String(value))) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            elements.elements.append(try JSONValueEncoder.node(for: value, at: CodingPath(path, JSONIndexKey(intValue: count))))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey>
        {
            let nested = Members()
            elements.elements.append(.object(nested))
            return KeyedEncodingContainer(
                Keyed<NestedKey>(members: nested, path: CodingPath(path, JSONIndexKey(intValue: count - 1))))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let nested = Elements()
            elements.elements.append(.array(nested))
            return Unkeyed(elements: nested, path: CodingPath(path, JSONIndexKey(intValue: count - 1)))
        }

        mutating func superEncoder() -> any Encoder {
            let encoder = JSONValueEncoder(path: CodingPath(path, JSONIndexKey(intValue: count)))
            elements.elements.append(.deferred(encoder))
            return encoder
        }
    }
}
