import Foundation

/// Where a sealed value lives; bound into the AES-GCM associated data so a sealed value
/// copied to another row, column or table no longer opens.
public struct AtRestContext: Sendable, Hashable {
    /// Table name (schema-qualified if you like; it only has to be stable).
    public var table: String
    /// Column name.
    public var column: String
    /// The row's id, as text.
    public var rowId: String

    /// Creates a context.
    public init(table: String, column: String, rowId: String) {
        self.table = table
        self.column = column
        self.rowId = rowId
    }

    /// Length-prefixed encoding: each field as `u32be(byteCount) ‖ utf8`, so no two
    /// different contexts encode alike.
    static func lengthPrefixed(_ fields: [String]) -> Data {
        var out = Data()
        for field in fields {
            let bytes = Data(field.utf8)
            withUnsafeBytes(of: UInt32(truncatingIfNeeded: bytes.count).bigEndian) { out.append(contentsOf: $0) }
            out.append(bytes)
        }
        return out
    }
}
