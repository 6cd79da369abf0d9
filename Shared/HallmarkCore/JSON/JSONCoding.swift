import Foundation

/// The one JSON encoding every Hallmark message and document is written with: compact,
/// sorted keys, `/` unescaped. Both directions throw; nothing is ever replaced by a
/// placeholder such as `{}`.
public enum JSONCoding {
    /// The bytes of `value`.
    /// - Throws: ``JSONCodingError`` when the value cannot be written as JSON (a non-finite
    ///   number, say).
    public static func encode<T: Encodable>(_ value: T) throws(JSONCodingError) -> [UInt8] {
        do {
            return try JSONValueEncoder.encode(value)
        } catch is JSONValueEncoder.Unsupported {
            return Array(try foundationEncode(value))
        } catch {
            throw JSONCodingError(path: "(root)", reason: "cannot be written as JSON")
        }
    }

    /// `value` as a ``JSONValue``, the tree ``encode(_:)`` writes: ``JSONWriter/write(_:)``
    /// of it gives the same bytes. For a caller that checks a message against its schema, or
    /// merges members, before writing it once.
    /// - Throws: ``JSONCodingError`` when the value cannot be written as JSON.
    public static func value<T: Encodable>(of value: T) throws(JSONCodingError) -> JSONValue {
        do {
            return try JSONValueEncoder.value(value)
        } catch is JSONValueEncoder.Unsupported {
            guard let parsed = try? JSONReader.parse(Array(try foundationEncode(value))) else {
                throw JSONCodingError(path: "(root)", reason: "cannot be written as JSON")
            }
            return parsed
        } catch {
            throw JSONCodingError(path: "(root)", reason: "cannot be written as JSON")
        }
    }

    /// The bytes of `value`, as `Data`.
    public static func encodeData<T: Encodable>(_ value: T) throws(JSONCodingError) -> Data {
        Data(try encode(value))
    }

    /// `JSONEncoder`'s bytes, for what ``JSONValueEncoder`` leaves to it (floating-point
    /// numbers, dates) and for the tests that hold the two equal.
    static func foundationEncode<T: Encodable>(_ value: T) throws(JSONCodingError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(value)
        } catch {
            throw JSONCodingError(path: "(root)", reason: "cannot be written as JSON")
        }
    }

    /// Decodes `bytes`; a failure names the field path, never a value.
    public static func decode<T: Decodable>(_ type: T.Type, from bytes: some DataProtocol) throws(JSONCodingError) -> T {
        try decoding { try JSONDecoder().decode(type, from: Data(bytes)) }
    }

    /// Decodes a value ``JSONReader`` already parsed (a stage's checked message), without
    /// reading its bytes again; it takes and refuses what ``decode(_:from:)`` does for the same
    /// document, and a failure names the same field path.
    public static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws(JSONCodingError) -> T {
        try decoding { try JSONValueDecoder(value).decodeValue(type) }
    }

    /// `body`'s value; a failure as a field path and a fixed reason.
    private static func decoding<T>(_ body: () throws -> T) throws(JSONCodingError) -> T {
        do {
            return try body()
        } catch let error as DecodingError {
            throw describe(error)
        } catch {
            throw JSONCodingError(path: "(root)", reason: "undecodable")
        }
    }

    static func describe(_ error: DecodingError) -> JSONCodingError {
        func path(_ codingPath: [any CodingKey]) -> String {
            let p = codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return p.isEmpty ? "(root)" : p
        }
        switch error {
        case .keyNotFound(let key, let context): return .init(path: path(context.codingPath + [key]), reason: "missing field")
        case .typeMismatch(_, let context): return .init(path: path(context.codingPath), reason: "wrong type")
        case .valueNotFound(_, let context): return .init(path: path(context.codingPath), reason: "null")
        case .dataCorrupted(let context):
            return .init(path: path(context.codingPath), reason: context.codingPath.isEmpty ? "not valid JSON" : "invalid value")
        @unknown default: return .init(path: "(root)", reason: "undecodable")
        }
    }
}

/// Why a value could not be written or read as JSON: a field path and a fixed reason, never
/// a value.
public struct JSONCodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where it went wrong, e.g. `camera_token.nonce` or `(root)`.
    public let path: String
    /// What went wrong, e.g. `missing field`.
    public let reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(reason) at \(path)" }
}
