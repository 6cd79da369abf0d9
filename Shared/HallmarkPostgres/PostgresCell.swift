/// One column value of a result row, in PostgreSQL's text output format.
public struct PostgresCell: Sendable, Hashable, CustomStringConvertible {
    /// The value's bytes as the server printed them, or nil for NULL.
    public let bytes: [UInt8]?
    /// The column's type.
    public let dataType: PostgresDataType
    /// The column's name.
    public let columnName: String
    /// The column's position in the row.
    public let columnIndex: Int

    public init(bytes: [UInt8]?, dataType: PostgresDataType, columnName: String, columnIndex: Int) {
        self.bytes = bytes
        self.dataType = dataType
        self.columnName = columnName
        self.columnIndex = columnIndex
    }

    /// Name, type and size only: values never appear in descriptions.
    public var description: String {
        "PostgresCell(\(columnName): \(dataType), \(bytes.map { "\($0.count) bytes" } ?? "NULL"))"
    }

    /// True when the value is SQL NULL.
    public var isNull: Bool { bytes == nil }

    /// Decodes the value as `T`.
    public func decode<T: PostgresDecodable>(_ type: T.Type = T.self) throws(PostgresError) -> T {
        do throws(PostgresError.DecodingFailure) {
            return try T(postgresCell: self)
        } catch {
            throw PostgresError.decoding(error, column: columnName)
        }
    }

    /// The non-NULL value as text, for conformances.
    func text() throws(PostgresError.DecodingFailure) -> String {
        guard let bytes else { throw .unexpectedNull }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Throws `.typeMismatch` unless the column type is one of `allowed`.
    func require<T>(_ allowed: Set<PostgresDataType>, for type: T.Type) throws(PostgresError.DecodingFailure) {
        guard allowed.contains(dataType) else {
            throw .typeMismatch(swiftType: String(describing: type), columnType: dataType)
        }
    }

    func invalid<T>(_ type: T.Type) -> PostgresError.DecodingFailure {
        .invalidValue(swiftType: String(describing: type), columnType: dataType)
    }
}
