/// One bind parameter as sent to the server: its type and its value in text or binary format.
public struct PostgresBind: Sendable, Hashable, CustomStringConvertible {
    /// The wire form of a parameter value.
    public enum Value: Sendable, Hashable, CustomStringConvertible {
        case null
        /// Text format: the type's input syntax (what `psql` would accept as a literal).
        case text(String)
        /// Binary format: the type's `send` representation (used for `bytea`, which is raw bytes).
        case binary([UInt8])

        /// The format and size only: values must never reach logs.
        public var description: String {
            switch self {
            case .null: "NULL"
            case .text(let text): "text(\(text.utf8.count) bytes)"
            case .binary(let bytes): "binary(\(bytes.count) bytes)"
            }
        }
    }

    /// The parameter type; ``PostgresDataType/unspecified`` lets the server infer it.
    public var type: PostgresDataType
    public var value: Value

    public init(type: PostgresDataType, value: Value) {
        self.type = type
        self.value = value
    }

    /// The type, format and size only: values must never reach logs.
    public var description: String { "PostgresBind(\(type), \(value))" }
}
