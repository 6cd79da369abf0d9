import Foundation

/// The JSON settings every Hallmark message is written with: sorted keys, `/` unescaped.
public enum JSONCoding {
    public static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    /// Decodes a message body; schema violations become ``EnvelopeError`` `schema_violation`
    /// naming the field path, never a value.
    public static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(bytes))
        } catch let error as DecodingError {
            throw EnvelopeError(.schemaViolation, describe(error))
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            let p = codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return p.isEmpty ? "(root)" : p
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing field \(path(context.codingPath + [key]))"
        case .typeMismatch(_, let context): return "wrong type at \(path(context.codingPath))"
        case .valueNotFound(_, let context): return "null at \(path(context.codingPath))"
        case .dataCorrupted(let context): return "invalid value at \(path(context.codingPath))"
        @unknown default: return "undecodable body"
        }
    }
}
