import Foundation

extension SmileIDSignature {
    /// Checks `mac` against every secret version (constant-time compare). When the raw
    /// payload matches none and it is JSON whose canonical re-encoding differs, retries once
    /// on that re-encoding. All PBKDF2 derivations of one attempt run as one batch.
    /// Returns nil when nothing matches; throws for a malformed MAC or headers.
    public static func verify(
        mac: String, secrets: [String], timestamp: String,
        headers: [String: String]? = nil,
        payload: Data? = nil
    ) throws(HallmarkCryptoError) -> Verification? {
        let expected = try Base64.decode(mac, length: 32)
        var headerBytes = Data()
        if let headers { headerBytes = try headersJSON(headers) }
        let raw = headerBytes + (payload ?? Data())
        if let index = try match(expected, secrets: secrets, timestamp: timestamp, data: raw) {
            return Verification(secretIndex: index, usedCanonicalBody: false)
        }
        guard let payload, let canonical = canonicalBody(payload), canonical != payload else { return nil }
        if let index = try match(expected, secrets: secrets, timestamp: timestamp, data: headerBytes + canonical) {
            return Verification(secretIndex: index, usedCanonicalBody: true)
        }
        return nil
    }

    /// Index of the first secret whose MAC over `data` equals `expected`. Every candidate is
    /// compared, so timing does not reveal which version matched.
    static func match(
        _ expected: Data, secrets: [String], timestamp: String,
        data: Data
    ) throws(HallmarkCryptoError) -> Int? {
        guard !secrets.isEmpty else { return nil }
        let salt = salt(dataCount: data.count, timestamp: timestamp)
        let keys = try PBKDF2.deriveBatch(
            secrets.map {
                PBKDF2.Request(password: Data($0.utf8), salt: salt, iterations: iterations)
            })
        var found: Int?
        for (i, key) in keys.enumerated() where HMACSHA256.verify(mac: expected, key: key, data: data) {
            if found == nil { found = i }
        }
        return found
    }
}
