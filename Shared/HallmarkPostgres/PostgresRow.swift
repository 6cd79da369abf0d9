/// One result row. Decode columns by position, by name, or all at once as a tuple.
public struct PostgresRow: Sendable, CustomStringConvertible {
    /// Column metadata shared by all rows of one result.
    final class Layout: Sendable {
        let columns: [PostgresColumn]
        let indexByName: [String: Int]

        init(_ columns: [PostgresColumn]) {
            self.columns = columns
            // The first of two same-named columns wins, as in most drivers.
            self.indexByName = Dictionary(columns.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        }
    }

    let layout: Layout
    let cells: ArraySlice<[UInt8]?>

    /// The row's columns, in order.
    public var columns: [PostgresColumn] { layout.columns }

    /// Column names only: cell values never appear in descriptions.
    public var description: String {
        "PostgresRow(\(layout.columns.map(\.name).joined(separator: ", ")))"
    }

    /// The cell at a column position.
    public func cell(at index: Int) throws(PostgresError) -> PostgresCell {
        guard layout.columns.indices.contains(index) else {
            throw .decoding(.columnIndexOutOfRange(index, columnCount: layout.columns.count), column: nil)
        }
        let column = layout.columns[index]
        return PostgresCell(
            bytes: cells[cells.startIndex + index], dataType: column.dataType,
            columnName: column.name, columnIndex: index)
    }

    /// The cell of a named column.
    public func cell(named name: String) throws(PostgresError) -> PostgresCell {
        guard let index = layout.indexByName[name] else {
            throw .decoding(.columnNotFound(name), column: name)
        }
        return try cell(at: index)
    }

    /// Decodes the named column, e.g. `try row.column("name", as: String.self)`.
    public func column<T: PostgresDecodable>(_ name: String, as type: T.Type = T.self) throws(PostgresError) -> T {
        try cell(named: name).decode(type)
    }

    /// Decodes the column at a position.
    public func column<T: PostgresDecodable>(_ index: Int, as type: T.Type = T.self) throws(PostgresError) -> T {
        try cell(at: index).decode(type)
    }

    /// Decodes the whole row as a tuple whose arity must equal the column count:
    /// `let (id, name) = try row.decode((Int64, String?).self)`.
    public func decode<each T: PostgresDecodable>(
        _ types: (repeat each T).Type
    ) throws(PostgresError) -> (repeat each T) {
        var expected = 0
        for _ in repeat (each T).self { expected += 1 }
        guard expected == layout.columns.count else {
            throw .decoding(.columnCountMismatch(expected: expected, actual: layout.columns.count), column: nil)
        }
        var index = 0
        func next<V: PostgresDecodable>(_ type: V.Type) throws(PostgresError) -> V {
            defer { index += 1 }
            return try column(index, as: type)
        }
        return (repeat try next((each T).self))
    }
}
