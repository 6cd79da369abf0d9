import Foundation
import HallmarkCrypto

/// Signs many requests that share salts with one PBKDF2 run per salt (load tests).
final class MemoSigner {
    let secret: String
    private var keys: [Data: Data] = [:]

    init(secret: String) {
        self.secret = secret
    }

    func signedHeaders(timestamp: String, partner: String, body: Data) throws -> [String: String] {
        var headers = [
            "Content-Type": "application/json", "SmileID-Partner-ID": partner,
            "SmileID-Source-SDK": "iOS", "SmileID-Request-Timestamp": timestamp,
        ]
        let data = try SmileIDSignature.signingData(headers: headers, payload: body)
        let salt = SmileIDSignature.salt(dataCount: data.count, timestamp: timestamp)
        let key =
            try keys[salt]
            ?? PBKDF2.deriveSHA256(
                password: Data(secret.utf8), salt: salt,
                iterations: SmileIDSignature.iterations)
        keys[salt] = key
        headers["SmileID-Request-Mac"] = Base64.encode(HMACSHA256.mac(key: key, data: data))
        return headers
    }
}
