import Foundation
import HallmarkCore

// Bind encodings of the standard types, in PostgreSQL's text input syntax (bytea: binary).

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
    public var postgresValue: PostgresBind.Value { .text(lowercasedText) }
}

extension Date: PostgresEncodable {
    /// Sent as `timestamptz` in UTC with microsecond precision (PostgreSQL's resolution).
    public static var postgresDataType: PostgresDataType { .timestamptz }
    public var postgresValue: PostgresBind.Value { .text(PostgresTimestamp.format(self)) }
}
