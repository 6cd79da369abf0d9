import Foundation

/// JSON helpers shared by the protocol types: decoding maps every failure to
/// `malformedJSON` (naming the field path, never the values); encoding is compact with
/// sorted keys and unescaped slashes so output is deterministic.
enum JSONCoding {
    static func decode<T: Decodable>(_ type: T.Type, from data: some DataProtocol,
                                     what: String) throws(HallmarkCryptoError) -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(data))
        } catch let DecodingError.keyNotFound(key, ctx) {
            throw HallmarkCryptoError(.malformedJSON, "\(what): missing field \(path(ctx.codingPath + [key]))")
        } catch let DecodingError.typeMismatch(_, ctx) {
            throw HallmarkCryptoError(.malformedJSON, "\(what): wrong type at \(path(ctx.codingPath))")
        } catch let DecodingError.valueNotFound(_, ctx) {
            throw HallmarkCryptoError(.malformedJSON, "\(what): null at \(path(ctx.codingPath))")
        } catch let DecodingError.dataCorrupted(ctx) where !ctx.codingPath.isEmpty {
            throw HallmarkCryptoError(.malformedJSON, "\(what): invalid value at \(path(ctx.codingPath))")
        } catch {
            throw HallmarkCryptoError(.malformedJSON, "\(what): not valid JSON")
        }
    }

    static func encode<T: Encodable>(_ value: T) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Our Encodable types hold only strings, integers, arrays and dictionaries.
        return (try? encoder.encode(value)) ?? Data("{}".utf8)
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.isEmpty ? "top level" : keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }
}
