import Foundation

/// A one-dimensional array bind parameter (`uuid[]`, `bytea[]`, `text[]`, `int8[]`) in
/// PostgreSQL's binary array format: thousands of values travel in one parameter, so a
/// statement over a whole batch (`… = ANY($1)`, `unnest($1, $2)`) stays small and its plan
/// is reused whatever the batch size.
public struct PostgresArray<Element: PostgresArrayElement>: PostgresEncodable {
    public var elements: [Element]

    public init(_ elements: [Element]) { self.elements = elements }

    public static var postgresDataType: PostgresDataType { Element.arrayType }

    public var postgresValue: PostgresBind.Value {
        var out: [UInt8] = []
        out.reserveCapacity(20 + elements.count * 24)
        func int32(_ v: Int32) { withUnsafeBytes(of: v.bigEndian) { out.append(contentsOf: $0) } }
        int32(1)  // dimensions
        int32(0)  // no NULLs
        int32(Int32(bitPattern: Element.elementType.rawValue))
        int32(Int32(elements.count))
        int32(1)  // lower bound
        for element in elements {
            let bytes = element.postgresArrayBytes
            int32(Int32(bytes.count))
            out.append(contentsOf: bytes)
        }
        return .binary(out)
    }
}

/// A type that can be an element of a ``PostgresArray``: its binary `send` form.
public protocol PostgresArrayElement: Sendable {
    static var elementType: PostgresDataType { get }
    static var arrayType: PostgresDataType { get }
    var postgresArrayBytes: [UInt8] { get }
}

extension UUID: PostgresArrayElement {
    public static var elementType: PostgresDataType { .uuid }
    public static var arrayType: PostgresDataType { .uuidArray }
    public var postgresArrayBytes: [UInt8] { withUnsafeBytes(of: uuid) { Array($0) } }
}

extension Data: PostgresArrayElement {
    public static var elementType: PostgresDataType { .bytea }
    public static var arrayType: PostgresDataType { .byteaArray }
    public var postgresArrayBytes: [UInt8] { [UInt8](self) }
}

extension String: PostgresArrayElement {
    public static var elementType: PostgresDataType { .text }
    public static var arrayType: PostgresDataType { .textArray }
    public var postgresArrayBytes: [UInt8] { Array(utf8) }
}

extension Int64: PostgresArrayElement {
    public static var elementType: PostgresDataType { .int8 }
    public static var arrayType: PostgresDataType { .int8Array }
    public var postgresArrayBytes: [UInt8] { withUnsafeBytes(of: bigEndian) { Array($0) } }
}
