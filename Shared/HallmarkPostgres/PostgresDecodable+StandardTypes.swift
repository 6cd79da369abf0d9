import Foundation
import HallmarkCore

// Decoders of the standard types from PostgreSQL's text output format.

extension String: PostgresDecodable {
    /// Any column type decodes as its text form (numeric, json, enums, …).
    public init(postgresCell cell: PostgresCell) throws(PostgresError.DecodingFailure) {
        self = try cell.text()
    }
}

/// Shared by the fixed-width integer types: range errors are `invalidValue`, not traps.
private func decodeInteger<T: FixedWidthInteger>(_ cell: PostgresCell) throws(PostgresError.DecodingFailure) -> T {
    try cell.require(PostgresDataType.integers, for: T.self)
    guard let value = T(try cell.text()) else { throw cell.invalid(T.self) }
    return value
}

extension Int: PostgresDecodable {
    public init(postgresCell cell: PostgresCell) throws(PostgresError.DecodingFailure) { self = try decodeInteger(cell) }
}

extension Int64: PostgresDecodable {
    public init(postgresCell cell: PostgresCell) throws(PostgresError.DecodingFailure) { self = try decodeInteger(cell) }
}

extension Int32: PostgresDecodable {
    public init(postgresCell cell: PostgresCell) throws(PostgresError.DecodingFailure) { self = try decodeInteger(cell) }
}

extension Int16: PostgresDecodable {
    public init(postgresCell cell: PostgresCell) throws(PostgresError.DecodingFailure) { self = try decodeInteger(cell) }
}

extension Bool: PostgresDecodable {
    public init(postgresCell cell: PostgresCell) throws(PostgresError.DecodingFailure) {
        try cell.require([.bool], for: Bool.self)
        switch try cell.text() {
        case "t": self = true
        case "f": self = false
        default: throw cell.invalid(Bool.self)
        }
    }
}

extension Double: PostgresDecodable {
    public init(postgresCell cell: PostgresCell) throws(PostgresError.DecodingFailure) {
        try cell.require(PostgresDataType.floats, for: Double.self)
        let text = try cell.text()
        switch text {
        case "NaN": self = .nan
        case "Infinity": self = .infinity
        case "-Infinity": self = -.infinity
        default:
            guard let value = Double(text) else { throw cell.invalid(Double.self) }
            self = value
        }
    }
}

extension Array: PostgresDecodable where Element == UInt8 {
    /// Decodes `bytea` (the server's hex output, `\x…`).
    public init(postgresCell cell: PostgresCell) throws(PostgresError.DecodingFailure) {
        try cell.require([.bytea], for: [UInt8].self)
        guard let bytes = cell.bytes else { throw .unexpectedNull }
        guard let decoded = Self.decodeHex(bytes) else { throw cell.invalid([UInt8].self) }
        self = decoded
    }

    private static func decodeHex(_ text: [UInt8]) -> [UInt8]? {
        guard text.count >= 2, text[0] == UInt8(ascii: "\\"), text[1] == UInt8(ascii: "x"),
            text.count % 2 == 0
        else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var out = [UInt8]()
        out.reserveCapacity(text.count / 2 - 1)
        var i = 2
        while i < text.count {
            guard let hi = nibble(text[i]), let lo = nibble(text[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }
}

extension Data: PostgresDecodable {
    /// Decodes `bytea`.
    public init(postgresCell cell: PostgresCell) throws(PostgresError.DecodingFailure) {
        self = Data(try [UInt8](postgresCell: cell))
    }
}

extension UUID: PostgresDecodable {
    public init(postgresCell cell: PostgresCell) throws(PostgresError.DecodingFailure) {
        try cell.require(PostgresDataType.strings.union([.uuid]), for: UUID.self)
        guard let value = UUID(text: try cell.text()) else { throw cell.invalid(UUID.self) }
        self = value
    }
}

extension Date: PostgresDecodable {
    /// Decodes `timestamptz`, `timestamp` (taken as UTC) and `date` (midnight UTC).
    public init(postgresCell cell: PostgresCell) throws(PostgresError.DecodingFailure) {
        try cell.require([.timestamptz, .timestamp, .date], for: Date.self)
        guard let value = PostgresTimestamp.parse(try cell.text()) else { throw cell.invalid(Date.self) }
        self = value
    }
}
