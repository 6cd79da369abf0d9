/// A PostgreSQL type OID, as reported for result columns and sent with bind parameters.
public struct PostgresDataType: Hashable, Sendable, CustomStringConvertible {
    /// The type's OID in `pg_type`.
    public let rawValue: UInt32
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }

    /// Lets the server infer the parameter's type from context (OID 0).
    public static let unspecified = PostgresDataType(0)
    public static let bool = PostgresDataType(16)
    public static let bytea = PostgresDataType(17)
    public static let name = PostgresDataType(19)
    public static let int8 = PostgresDataType(20)
    public static let int2 = PostgresDataType(21)
    public static let int4 = PostgresDataType(23)
    public static let text = PostgresDataType(25)
    public static let oid = PostgresDataType(26)
    public static let json = PostgresDataType(114)
    public static let float4 = PostgresDataType(700)
    public static let float8 = PostgresDataType(701)
    public static let unknown = PostgresDataType(705)
    public static let bpchar = PostgresDataType(1042)
    public static let varchar = PostgresDataType(1043)
    public static let date = PostgresDataType(1082)
    public static let timestamp = PostgresDataType(1114)
    public static let timestamptz = PostgresDataType(1184)
    public static let numeric = PostgresDataType(1700)
    public static let uuid = PostgresDataType(2950)
    public static let jsonb = PostgresDataType(3802)
    public static let byteaArray = PostgresDataType(1001)
    public static let textArray = PostgresDataType(1009)
    public static let int8Array = PostgresDataType(1016)
    public static let uuidArray = PostgresDataType(2951)

    static let integers: Set<PostgresDataType> = [.int2, .int4, .int8, .oid, .numeric]
    static let floats: Set<PostgresDataType> = [.float4, .float8, .numeric, .int2, .int4, .int8]
    static let strings: Set<PostgresDataType> = [.text, .varchar, .bpchar, .name, .unknown]

    public var description: String {
        switch self {
        case .unspecified: "unspecified"
        case .bool: "bool"
        case .bytea: "bytea"
        case .name: "name"
        case .int8: "int8"
        case .int2: "int2"
        case .int4: "int4"
        case .text: "text"
        case .oid: "oid"
        case .json: "json"
        case .float4: "float4"
        case .float8: "float8"
        case .unknown: "unknown"
        case .bpchar: "bpchar"
        case .varchar: "varchar"
        case .date: "date"
        case .timestamp: "timestamp"
        case .timestamptz: "timestamptz"
        case .numeric: "numeric"
        case .uuid: "uuid"
        case .jsonb: "jsonb"
        default: "oid \(rawValue)"
        }
    }
}
