import Foundation
import HallmarkCrypto
import HallmarkCore
import HallmarkMessages
import HallmarkRuntime
import HallmarkSmileID

/// SIGN-1 signing with the signing secret version: stamps the timestamp when the request
/// has none, then adds the MAC header.
package struct RequestSigner: Sendable {
    let deriver: KeyDeriver

    package init(deriver: KeyDeriver) {
        self.deriver = deriver
    }

    /// The signed headers and the version used. Bad input throws ``StageRejection``.
    package func sign(
        headers: [String: String], body: Data, timestamp: String?, secrets: SecretSet,
        now: Date
    ) async throws -> (headers: [String: String], version: String) {
        guard HeaderMap.lowercased(headers) != nil else {
            throw StageRejection(.schemaViolation, "header names collide after lowercasing")
        }
        var out = headers
        let stamp = HeaderMap.value(HeaderMap.timestamp, in: headers) ?? timestamp ?? Timestamp.format(now)
        guard Timestamp.parse(stamp) != nil else {
            throw StageRejection(.schemaViolation, "the timestamp is not ISO 8601")
        }
        HeaderMap.set(HeaderMap.timestamp, stamp, in: &out)
        HeaderMap.remove(HeaderMap.mac, from: &out)
        let data: Data
        do {
            data = try SmileIDSignature.signingData(headers: out, payload: body)
        } catch {
            throw StageRejection(.schemaViolation, "headers cannot be signed")
        }
        let salt = SmileIDSignature.salt(dataCount: data.count, timestamp: stamp)
        let key = try await deriver.keys(versions: [secrets.signing], salt: salt)[0]
        out[HeaderMap.mac] = Base64.encode(HMACSHA256.mac(key: key, data: data))
        return (out, secrets.signing.version)
    }
}
