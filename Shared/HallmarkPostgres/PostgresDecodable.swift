/// A Swift type that can be decoded from a result column.
///
/// Values arrive in PostgreSQL's text output format; each conformance checks the column type
/// first, so that, say, decoding `Int` from a `text` column is a ``PostgresError/DecodingFailure/typeMismatch(swiftType:columnType:)``
/// rather than a parse that happens to succeed.
public protocol PostgresDecodable: Sendable {
    /// Decodes a cell; NULL is ``PostgresError/DecodingFailure/unexpectedNull`` unless `Self` is optional.
    init(postgresCell cell: PostgresCell) throws(PostgresError.DecodingFailure)
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public init(postgresCell cell: PostgresCell) throws(PostgresError.DecodingFailure) {
        self = cell.isNull ? .none : .some(try Wrapped(postgresCell: cell))
    }
}
