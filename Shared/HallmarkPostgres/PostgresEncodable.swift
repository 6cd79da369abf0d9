import Foundation

/// One bind parameter as sent to the server: its type and its value in text or binary format.
public struct PostgresBind: Sendable, Hashable {
    /// The wire form of a parameter value.
    public enum Value: Sendable, Hashable {
        case null
        /// Text format: the type's input syntax (what `psql` would accept as a literal).
        case text(String)
        /// Binary format: the type's `send` representation (used for `bytea`, which is raw bytes).
        case binary([UInt8])
    }

    /// The parameter type; ``PostgresDataType/unspecified`` lets the server infer it.
    public var type: PostgresDataType
    public var value: Value

    public init(type: PostgresDataType, value: Value) {
        self.type = type
        self.value = value
    }
}

/// A Swift value that can be sent as a bind parameter.
///
/// Conform your own types by mapping them onto one of the built-in encodings.
public protocol PostgresEncodable: Sendable {
    /// The parameter type sent to the server, also for NULL (`Optional.none`).
    static var postgresDataType: PostgresDataType { get }
    /// The value in text or binary wire format.
    var postgresValue: PostgresBind.Value { get }
}

extension PostgresEncodable {
    var postgresBind: PostgresBind { PostgresBind(type: Self.postgresDataType, value: postgresValue) }
}

extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    public static var postgresDataType: PostgresDataType { Wrapped.postgresDataType }
    public var postgresValue: PostgresBind.Value { self?.postgresValue ?? .null }
}

extension String: PostgresEncodable {
    /// Unspecified so that strings also bind to `uuid`, `jsonb` and enum columns; the server
    /// resolves a lone `$1` to `text`.
    public static var postgresDataType: PostgresDataType { .unspecified }
    public var postgresValue: PostgresBind.Value { .text(self) }
}

extension Substring: PostgresEncodable {
    public static var postgresDataType: PostgresDataType { .unspecified }
    public var postgresValue: PostgresBind.Value { .text(String(self)) }
}

extension Int: PostgresEncodable {
    public static var postgresDataType: PostgresDataType { .int8 }
    public var postgresValue: PostgresBind.Value { .text(String(self)) }
}

extension Int64: PostgresEncodable {
    public static var postgresDataType: PostgresDataType { .int8 }
    public var postgresValue: PostgresBind.Value { .text(String(self)) }
}

extension Int32: PostgresEncodable {
    public static var postgresDataType: PostgresDataType { .int4 }
    public var postgresValue: PostgresBind.Value { .text(String(self)) }
}

extension Int16: PostgresEncodable {
    public static var postgresDataType: PostgresDataType { .int2 }
    public var postgresValue: PostgresBind.Value { .text(String(self)) }
}

extension Bool: PostgresEncodable {
    public static var postgresDataType: PostgresDataType { .bool }
    public var postgresValue: PostgresBind.Value { .text(self ? "t" : "f") }
}

extension Double: PostgresEncodable {
    public static var postgresDataType: PostgresDataType { .float8 }
    public var postgresValue: PostgresBind.Value {
        // Swift spells these "inf"/"nan"; float8in wants the long forms.
        if isNaN { return .text("NaN") }
        if isInfinite { return .text(self < 0 ? "-Infinity" : "Infinity") }
        return .text(String(self))  // shortest representation that round-trips exactly
    }
}

extension Array: PostgresEncodable where Element == UInt8 {
    public static var postgresDataType: PostgresDataType { .bytea }
    public var postgresValue: PostgresBind.Value { .binary(self) }
}

extension Data: PostgresEncodable {
    public static var postgresDataType: PostgresDataType { .bytea }
    public var postgresValue: PostgresBind.Value { .binary([UInt8](self)) }
}

extension UUID: PostgresEncodable {
    public static var postgresDataType: PostgresDataType { .uuid }
    public var postgresValue: PostgresBind.Value { .text(uuidString) }
}

extension Date: PostgresEncodable {
    /// Sent as `timestamptz` in UTC with microsecond precision (PostgreSQL's resolution).
    public static var postgresDataType: PostgresDataType { .timestamptz }
    public var postgresValue: PostgresBind.Value { .text(PostgresTimestamp.format(self)) }
}
