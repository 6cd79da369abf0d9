import Foundation
import HallmarkCore

extension JSONCoding {
    /// Decodes a protocol document; a failure is `malformedJSON` naming `what` and the field
    /// path, never a value.
    static func decode<T: Decodable>(
        _ type: T.Type, from data: some DataProtocol,
        what: String
    ) throws(HallmarkCryptoError) -> T {
        do {
            return try decode(type, from: data)
        } catch {
            throw HallmarkCryptoError(.malformedJSON, "\(what): \(error.description)")
        }
    }

    /// Encodes a protocol document with Hallmark's settings.
    static func encodeData<T: Encodable>(_ value: T, what: String) throws(HallmarkCryptoError) -> Data {
        do {
            return try encodeData(value)
        } catch {
            throw HallmarkCryptoError(.malformedJSON, "\(what): cannot be written as JSON")
        }
    }
}
