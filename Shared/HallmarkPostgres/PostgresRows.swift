/// The complete result of a statement, copied out of libpq: safe to keep and pass around.
///
/// ```swift
/// for row in try await pool.query("SELECT id, name FROM t") {
///     let (id, name) = try row.decode((Int64, String).self)
/// }
/// ```
public struct PostgresRows: RandomAccessCollection, Sendable, CustomStringConvertible {
    /// The result's columns, in order.
    public var columns: [PostgresColumn] { layout.columns }
    /// The command tag, e.g. `INSERT 0 3` or `SELECT 2`.
    public let commandTag: String
    /// Rows inserted, updated, deleted, selected… as the command tag reports (0 when it has no count).
    public let affectedRows: Int

    let layout: PostgresRow.Layout
    let rowCount: Int  // kept apart: a row may have no columns (`SELECT FROM t`)
    let cells: [[UInt8]?]  // row-major, columns.count per row

    init(columns: [PostgresColumn], rowCount: Int, cells: [[UInt8]?], commandTag: String, affectedRows: Int) {
        self.layout = PostgresRow.Layout(columns)
        self.rowCount = rowCount
        self.cells = cells
        self.commandTag = commandTag
        self.affectedRows = affectedRows
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { rowCount }

    public subscript(position: Int) -> PostgresRow {
        let width = layout.columns.count
        return PostgresRow(layout: layout, cells: cells[position * width..<(position + 1) * width])
    }

    /// Shape only: cell values never appear in descriptions.
    public var description: String {
        "PostgresRows(\(commandTag), \(count) rows, columns: \(columns.map(\.name).joined(separator: ", ")))"
    }

    /// Decodes every row as a tuple, e.g. `try rows.decode((Int64, String).self)`.
    public func decode<each T: PostgresDecodable>(
        _ types: (repeat each T).Type
    ) throws(PostgresError) -> [(repeat each T)] {
        var result: [(repeat each T)] = []
        result.reserveCapacity(count)
        for row in self { result.append(try row.decode(types)) }
        return result
    }
}
