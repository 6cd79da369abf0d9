/// An error from the PostgreSQL module.
///
/// The description is safe to log and to put in a rejected record: it never contains bind
/// values, passwords or any text the server wrote about a statement. The server's primary
/// message and its `DETAIL` can quote values (`invalid input syntax for type uuid: "…"`, the
/// duplicated key of a unique violation), so a server error keeps only its SQLSTATE, the
/// SQLSTATE's condition name (``condition``) and the constraint it names.
public struct PostgresError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is. Callers branch on this, not on the message.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// Could not open a connection (server down, refused, authentication failed, timeout).
        /// The message is libpq's first line: the address and, for a refused login, the server's
        /// reason; no statement has run, so it holds no bound value (and never a password).
        public static let connectionFailed = Code("connectionFailed")
        /// The connection broke before or during the call; the call may be retried on a new one.
        public static let connectionLost = Code("connectionLost")
        /// The server rejected the statement; see ``PostgresError/sqlState``.
        public static let queryFailed = Code("queryFailed")
        /// A column value could not be decoded into the requested Swift type.
        public static let decoding = Code("decoding")
        /// The pool was closed before or while waiting for a connection.
        public static let poolClosed = Code("poolClosed")
        /// The query could not be built (an identifier failed validation).
        public static let invalidQuery = Code("invalidQuery")
        /// The configuration is missing or malformed.
        public static let invalidConfiguration = Code("invalidConfiguration")
        /// A migration failed; see ``PostgresError/migrationVersion``.
        public static let migrationFailed = Code("migrationFailed")
    }

    /// Why decoding a column failed; values are never included.
    public enum DecodingFailure: Error, Hashable, Sendable, CustomStringConvertible {
        /// The column was NULL but the requested type is not optional.
        case unexpectedNull
        /// The column's PostgreSQL type cannot become the requested Swift type.
        case typeMismatch(swiftType: String, columnType: PostgresDataType)
        /// The column's text could not be parsed (or is out of range) for the requested type.
        case invalidValue(swiftType: String, columnType: PostgresDataType)
        /// No column has this name.
        case columnNotFound(String)
        /// The index is past the last column.
        case columnIndexOutOfRange(Int, columnCount: Int)
        /// A tuple decode asked for a different number of columns than the row has.
        case columnCountMismatch(expected: Int, actual: Int)

        public var description: String {
            switch self {
            case .unexpectedNull: "unexpected NULL"
            case .typeMismatch(let t, let c): "cannot decode \(c) as \(t)"
            case .invalidValue(let t, let c): "invalid \(c) value for \(t)"
            case .columnNotFound(let n): "no column named \(n)"
            case .columnIndexOutOfRange(let i, let n): "column index \(i) out of range (\(n) columns)"
            case .columnCountMismatch(let e, let a): "expected \(e) columns, row has \(a)"
            }
        }
    }

    /// The kind of failure.
    public var code: Code
    /// The 5-character SQLSTATE when the server reported one (e.g. `23505`).
    public var sqlState: String?
    /// A human-readable message of ours; for a server error, `server error: <condition>`. Never
    /// bind values or the server's own words.
    public var message: String
    /// The constraint the server named, if any (e.g. for unique or foreign key violations).
    public var constraint: String?
    /// The column involved in a decoding failure.
    public var column: String?
    /// Details of a decoding failure.
    public var decodingFailure: DecodingFailure?
    /// The version of the migration that failed.
    public var migrationVersion: Int?

    public init(code: Code, message: String, sqlState: String? = nil, constraint: String? = nil) {
        self.code = code
        self.message = message
        self.sqlState = sqlState
        self.constraint = constraint
    }

    /// The SQLSTATE's condition name (`unique_violation` for `23505`), or for a code this
    /// module does not know, its class's name; nil without a SQLSTATE.
    public var condition: String? { sqlState.flatMap(PostgresConditionNames.name(for:)) }

    /// True for a unique constraint violation (SQLSTATE `23505`).
    public var isUniqueViolation: Bool { sqlState == "23505" }
    /// True for a foreign key violation (SQLSTATE `23503`).
    public var isForeignKeyViolation: Bool { sqlState == "23503" }
    /// True for a serialization failure or deadlock (`40001`, `40P01`): retry the transaction.
    public var isSerializationFailure: Bool { sqlState == "40001" || sqlState == "40P01" }
    /// True when the statement was cancelled (SQLSTATE `57014`), e.g. because the calling task
    /// was cancelled or `statement_timeout` expired.
    public var isQueryCanceled: Bool { sqlState == "57014" }
    /// True when the failure concerns the connection rather than the statement, so the same call
    /// may succeed on a new connection.
    public var isConnectionError: Bool { code == .connectionLost || code == .connectionFailed }

    public var description: String {
        var text = "PostgresError(\(code)"
        if let sqlState { text += ", sqlState: \(sqlState)" }
        if let constraint { text += ", constraint: \(constraint)" }
        if let column { text += ", column: \(column)" }
        if let migrationVersion { text += ", migration: \(migrationVersion)" }
        return text + "): " + message
    }

    /// A statement error the server reported, by its SQLSTATE and constraint alone.
    static func server(_ code: Code, sqlState: String, constraint: String?) -> PostgresError {
        let condition = PostgresConditionNames.name(for: sqlState) ?? "SQLSTATE \(sqlState)"
        return PostgresError(
            code: code, message: "server error: \(condition)", sqlState: sqlState,
            constraint: constraint)
    }

    static func decoding(_ failure: DecodingFailure, column: String?) -> PostgresError {
        var error = PostgresError(code: .decoding, message: failure.description)
        error.column = column
        error.decodingFailure = failure
        return error
    }
}
