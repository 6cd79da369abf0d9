import Foundation

/// Decodes a `Decodable` from a ``JSONValue`` that ``JSONReader`` already parsed (a stage's
/// message after its schema check), instead of parsing the bytes again with `JSONDecoder`.
///
/// It takes what `JSONDecoder`'s default strategies take, with the same results: integers
/// written as integers, or with a fraction or exponent when the value is exact (`1.0`, `1e2`);
/// `Data` as base64; `null` as nil; unknown members ignored. Failures are `DecodingError`s with
/// the same coding paths, so ``JSONCoding/describe(_:)`` names the same field.
/// (`JSONCodingTests` holds the two decoders equal over every message example and the
/// schema violations derived from them.)
struct JSONValueDecoder: Decoder {
    let value: JSONValue
    /// Where the value is: its container's path and its own key. The path is built as an
    /// array only when something asks for it (an error, mostly), not once per member.
    let parent: CodingPath?
    let key: (any CodingKey)?
    var codingPath: [any CodingKey] { CodingPath.array(parent, key) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ value: JSONValue, parent: CodingPath? = nil, key: (any CodingKey)? = nil) {
        self.value = value
        self.parent = parent
        self.key = key
    }

    /// The path a container of this value hands its members.
    private var path: CodingPath? { key.map { CodingPath(parent, $0) } ?? parent }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw mismatch([String: Any].self, at: codingPath, value) }
        return KeyedDecodingContainer(Keyed<Key>(members: members, path: path))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw mismatch([Any].self, at: codingPath, value) }
        return Unkeyed(elements: elements, path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    /// `T` from this value, with `JSONDecoder`'s special cases.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == Data.self {
            let text = try decode(String.self)
            guard let data = Data(base64Encoded: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "not base64"))
            }
            return data as! T
        }
        if T.self == URL.self {
            guard let url = URL(string: try decode(String.self)) else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "not a URL"))
            }
            return url as! T
        }
        return try T(from: self)
    }
}

extension JSONValueDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { value == .null }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let b) = try present(type) else { throw mismatch(type, at: codingPath, value) }
        return b
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let s) = try present(type) else { throw mismatch(type, at: codingPath, value) }
        return s
    }

    func decode(_ type: Double.Type) throws -> Double { try floatingPoint(type) }
    func decode(_ type: Float.Type) throws -> Float { try floatingPoint(type) }
    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(type) }

    /// The value, or `valueNotFound` for null (as `JSONDecoder` answers a null where a value
    /// of `type` is needed).
    private func present<T>(_ type: T.Type) throws -> JSONValue {
        guard value != .null else {
            throw DecodingError.valueNotFound(
                type,
                .init(
                    codingPath: codingPath,
                    debugDescription: "found null instead of \(type)"))
        }
        return value
    }

    private func number<T>(_ type: T.Type) throws -> String {
        guard case .number(let text) = try present(type) else { throw mismatch(type, at: codingPath, value) }
        return text
    }

    private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let text = try number(type)
        if let exact = T(text) { return exact }
        // `1.0` and `1e2` are exact integers to JSONDecoder; `1.5` and out-of-range values are not.
        if JSONValue.hasFractionOrExponent(text), let d = Double(text), let exact = T(exactly: d) {
            return exact
        }
        throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "number does not fit \(type)"))
    }

    private func floatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(_ type: T.Type) throws -> T {
        guard let d = T(try number(type)), d.isFinite else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "number does not fit \(type)"))
        }
        return d
    }
}

/// `typeMismatch` for `value` where a `type` was expected.
private func mismatch<T>(_ type: T.Type, at path: [any CodingKey], _ value: JSONValue) -> DecodingError {
    .typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(type), found another JSON type"))
}

/// A coding path as a chain from the innermost container out, shared by everything inside
/// that container: descending a level costs one small object, not a copy of the path.
final class CodingPath {
    let parent: CodingPath?
    let key: any CodingKey

    init(_ parent: CodingPath?, _ key: any CodingKey) {
        self.parent = parent
        self.key = key
    }

    /// The path as `Decoder.codingPath` gives it: outermost key first, then `last`.
    static func array(_ path: CodingPath?, _ last: (any CodingKey)?) -> [any CodingKey] {
        var keys: [any CodingKey] = last.map { [$0] } ?? []
        var node = path
        while let n = node {
            keys.append(n.key)
            node = n.parent
        }
        return keys.reversed()
    }
}

/// An array element's coding key (`[3]` in a path).
struct JSONIndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

extension JSONValueDecoder {
    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let members: [String: JSONValue]
        let path: CodingPath?
        var codingPath: [any CodingKey] { CodingPath.array(path, nil) }

        var allKeys: [Key] { members.keys.compactMap(Key.init(stringValue:)) }

        func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

        func decoder(for key: Key) throws -> JSONValueDecoder {
            guard let value = members[key.stringValue] else {
                throw DecodingError.keyNotFound(
                    key, .init(codingPath: codingPath, debugDescription: "no member \(key.stringValue)"))
            }
            return JSONValueDecoder(value, parent: path, key: key)
        }

        func decodeNil(forKey key: Key) throws -> Bool { try decoder(for: key).decodeNil() }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder(for: key).decode(type) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder(for: key).decode(type) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder(for: key).decode(type) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder(for: key).decode(type) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder(for: key).decode(type) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder(for: key).decode(type) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder(for: key).decode(type) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder(for: key).decode(type) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder(for: key).decode(type) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder(for: key).decode(type) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder(for: key).decode(type) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder(for: key).decode(type) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder(for: key).decode(type) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder(for: key).decode(type) }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decoder(for: key).decodeValue(type) }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type,
            forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            try decoder(for: key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try decoder(for: key).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            JSONValueDecoder(members["super"] ?? .null, parent: path, key: Key(stringValue: "super"))
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            JSONValueDecoder(members[key.stringValue] ?? .null, parent: path, key: key)
        }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let elements: [JSONValue]
        let path: CodingPath?
        var codingPath: [any CodingKey] { CodingPath.array(path, nil) }
        var currentIndex = 0

        init(elements: [JSONValue], path: CodingPath?) {
            self.elements = elements
            self.path = path
        }

        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        /// The next element's decoder; the index moves on only when decoding succeeds.
        private func next<T>(_ type: T.Type) throws -> JSONValueDecoder {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(
                    type,
                    .init(
                        codingPath: codingPath + [JSONIndexKey(intValue: currentIndex)],
                        debugDescription: "unkeyed container is at its end"))
            }
            return JSONValueDecoder(elements[currentIndex], parent: path, key: JSONIndexKey(intValue: currentIndex))
        }

        private mutating func take<T>(_ type: T.Type, _ body: (JSONValueDecoder) throws -> T) throws -> T {
            let value = try body(try next(type))
            currentIndex += 1
            return value
        }

        mutating func decodeNil() throws -> Bool {
            guard try next(Never.self).decodeNil() else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode(_ type: Bool.Type) throws -> Bool { try take(type) { try $0.decode(type) } }
        mutating func decode(_ type: String.Type) throws -> String { try take(type) { try $0.decode(type) } }
        mutating func decode(_ type: Double.Type) throws -> Double { try take(type) { try $0.decode(type) } }
        mutating func decode(_ type: Float.Type) throws -> Float { try take(type) { try $0.decode(type) } }
        mutating func decode(_ type: Int.Type) throws -> Int { try take(type) { try $0.decode(type) } }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try take(type) { try $0.decode(type) } }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try take(type) { try $0.decode(type) } }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try take(type) { try $0.decode(type) } }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try take(type) { try $0.decode(type) } }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try take(type) { try $0.decode(type) } }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try take(type) { try $0.decode(type) } }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try take(type) { try $0.decode(type) } }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try take(type) { try $0.decode(type) } }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try take(type) { try $0.decode(type) } }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try take(type) { try $0.decodeValue(type) } }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type
        ) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            try take(KeyedDecodingContainer<NestedKey>.self) { try $0.container(keyedBy: type) }
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            try take((any UnkeyedDecodingContainer).self) { try $0.unkeyedContainer() }
        }

        mutating func superDecoder() throws -> any Decoder { try take((any Decoder).self) { $0 } }
    }
}
