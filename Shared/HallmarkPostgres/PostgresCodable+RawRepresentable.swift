/// A type that is both bound as a parameter and decoded from columns.
public typealias PostgresCodable = PostgresEncodable & PostgresDecodable

// String- or integer-backed enums (and other RawRepresentable types) get their raw value's
// encoding for free: `enum Status: String, PostgresCodable { case active, revoked }`.

extension PostgresEncodable where Self: RawRepresentable, RawValue: PostgresEncodable {
    public static var postgresDataType: PostgresDataType { RawValue.postgresDataType }
    public var postgresValue: PostgresBind.Value { rawValue.postgresValue }
}

extension PostgresDecodable where Self: RawRepresentable, RawValue: PostgresDecodable {
    /// An unknown raw value is ``PostgresError/DecodingFailure/invalidValue(swiftType:columnType:)``.
    public init(postgresCell cell: PostgresCell) throws(PostgresError.DecodingFailure) {
        guard let value = Self(rawValue: try RawValue(postgresCell: cell)) else {
            throw .invalidValue(swiftType: String(describing: Self.self), columnType: cell.dataType)
        }
        self = value
    }
}
