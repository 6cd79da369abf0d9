/// A SQL statement whose interpolated values become bind parameters.
///
/// ```swift
/// let query: PostgresQuery = "SELECT x FROM t WHERE id = \(id) AND name = \(name)"
/// // query.sql == "SELECT x FROM t WHERE id = $1 AND name = $2", two binds
/// ```
///
/// There is deliberately no way to splice a runtime string into the SQL text, except
/// `\(unescaped: identifier)` for identifiers such as schema names, which must match
/// `[a-z_][a-z0-9_]*` (at most 63 characters); an invalid one makes the query throw
/// ``PostgresError/Code/invalidQuery`` when run. Queries nest: `\(otherQuery)` appends its
/// text and binds, renumbered.
public struct PostgresQuery: ExpressibleByStringInterpolation, Sendable, CustomStringConvertible {
    enum Piece: Sendable {
        case sql(String)
        case bind(PostgresBind)
    }

    var pieces: [Piece]
    /// Set when an `unescaped:` identifier failed validation; reported when the query runs.
    var invalidIdentifier: String?
    /// Planned at every run rather than under a plan the connection keeps (``plannedEachRun()``).
    var isPlannedEachRun = false

    public init(stringLiteral value: String) {
        pieces = [.sql(value)]
    }

    public init(stringInterpolation: StringInterpolation) {
        pieces = stringInterpolation.pieces
        invalidIdentifier = stringInterpolation.invalidIdentifier
    }

    /// Appends another query's SQL and binds (renumbered), in constant time per piece.
    public mutating func append(_ other: PostgresQuery) {
        pieces.append(contentsOf: other.pieces)
        if let bad = other.invalidIdentifier { invalidIdentifier = bad }
    }

    /// The parts one after the other with `separator` between them, e.g. the rows of a
    /// multi-row `VALUES` list. Linear in the parts (interpolating a growing query into itself
    /// would copy it each time).
    public static func joined(_ parts: some Sequence<PostgresQuery>, separator: String) -> PostgresQuery {
        var result: PostgresQuery = ""
        result.pieces.removeAll()
        for (i, part) in parts.enumerated() {
            if i > 0 { result.pieces.append(.sql(separator)) }
            result.append(part)
        }
        return result
    }

    /// This statement, planned again at every run with its parameters' values, never under a
    /// plan the connection keeps for it.
    ///
    /// For a batch statement that joins the keys it carries to a table that grows. A connection
    /// prepares a statement it runs again, and PostgreSQL then keeps a generic plan, made for
    /// ten keys and the tables' sizes at that moment, for as long as the connection lives. Made
    /// while a table was small, such a plan can scan the whole table once per key after it has
    /// grown: the aggregator's queue update spent 6.4 s on one batch of 4,096 keys that way
    /// (docs/operations.md §2, "Query plans on growing tables"). The price is a parse and a
    /// plan per run.
    public func plannedEachRun() -> PostgresQuery {
        var query = self
        query.isPlannedEachRun = true
        return query
    }

    /// The SQL text with `$1`, `$2`, … placeholders.
    public var sql: String { render().sql }

    /// The bind parameters, in placeholder order.
    public var binds: [PostgresBind] { render().binds }

    /// The SQL text only: bind values are never part of a description.
    public var description: String { sql }

    func render() -> (sql: String, binds: [PostgresBind]) {
        var sql = ""
        var binds: [PostgresBind] = []
        for piece in pieces {
            switch piece {
            case .sql(let text): sql += text
            case .bind(let bind):
                binds.append(bind)
                sql += "$\(binds.count)"
            }
        }
        return (sql, binds)
    }

    /// Throws unless every `unescaped:` identifier was valid.
    func validate() throws(PostgresError) {
        if invalidIdentifier != nil {
            throw PostgresError(code: .invalidQuery, message: "invalid SQL identifier in query (allowed: [a-z_][a-z0-9_]*)")
        }
    }

    /// True when `name` may be spliced as an identifier: `[a-z_][a-z0-9_]*`, at most 63 bytes.
    public static func isValidIdentifier(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 63,
            first == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first)
        else { return false }
        return bytes.allSatisfy {
            $0 == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
        }
    }

    /// Builds a query from literals and interpolations.
    public struct StringInterpolation: StringInterpolationProtocol {
        var pieces: [Piece] = []
        var invalidIdentifier: String?

        public init(literalCapacity: Int, interpolationCount: Int) {
            pieces.reserveCapacity(interpolationCount * 2 + 1)
        }

        public mutating func appendLiteral(_ literal: String) {
            if !literal.isEmpty { pieces.append(.sql(literal)) }
        }

        /// Binds a value as the next `$n` parameter (NULL for `nil`).
        public mutating func appendInterpolation<T: PostgresEncodable>(_ value: T) {
            pieces.append(.bind(value.postgresBind))
        }

        /// Binds an optional value: NULL (typed as `T`) for `nil`. Spelled out so the compiler
        /// doesn't warn about interpolating optionals.
        public mutating func appendInterpolation<T: PostgresEncodable>(_ value: T?) {
            pieces.append(.bind(value.postgresBind))
        }

        /// Binds a duration as an SQL `interval`: its seconds, fractions kept, as the next `$n`
        /// parameter, times `interval '1 second'` (in parentheses, so it composes with any
        /// operator).
        public mutating func appendInterpolation(interval duration: Duration) {
            let (seconds, attoseconds) = duration.components
            pieces.append(.sql("("))
            pieces.append(.bind((Double(seconds) + Double(attoseconds) / 1e18).postgresBind))
            pieces.append(.sql(" * interval '1 second')"))
        }

        /// Appends another query's SQL and binds.
        public mutating func appendInterpolation(_ query: PostgresQuery) {
            pieces.append(contentsOf: query.pieces)
            if let bad = query.invalidIdentifier { invalidIdentifier = bad }
        }

        /// Splices a validated identifier (e.g. a schema name) into the SQL text.
        public mutating func appendInterpolation(unescaped identifier: String) {
            if PostgresQuery.isValidIdentifier(identifier) {
                pieces.append(.sql(identifier))
            } else {
                invalidIdentifier = identifier
                pieces.append(.sql("<invalid identifier>"))
            }
        }
    }
}
