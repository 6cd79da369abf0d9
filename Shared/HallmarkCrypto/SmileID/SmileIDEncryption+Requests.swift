import Foundation

extension SmileIDEncryption {
    /// Multipart fields that get encrypted; each becomes `<field>_encrypted`.
    public static let multipartFields = ["partner_params", "metadata"]

    /// The headers ENC-1 adds to an encrypted request.
    public static func headers(requestId: String) -> [String: String] {
        [
            "SmileID-Encryption-Version": SmileIDEnvelope.currentVersion,
            "SmileID-Request-ID": requestId,
            "SmileID-Content-Encrypted": "true",
            "Content-Type": "application/octet-stream",
        ]
    }

    /// A whole body (REST JSON or a ZIP file) encrypted: the envelope JSON and the headers.
    public static func encryptBody(
        _ body: Data, secret: String, timestamp: String, requestId: String,
        iv: Data? = nil
    ) throws(HallmarkCryptoError) -> (body: Data, headers: [String: String]) {
        let envelope = try encrypt(body, secret: secret, timestamp: timestamp, requestId: requestId, iv: iv)
        return (try envelope.jsonData(), headers(requestId: requestId))
    }

    /// Decrypts a body produced by `encryptBody`.
    public static func decryptBody(_ body: Data, secret: String, requestId: String) throws(HallmarkCryptoError) -> Data {
        try decrypt(SmileIDEnvelope.parse(body), secret: secret, requestId: requestId)
    }

    /// Multipart: encrypts the `partner_params` / `metadata` values present in `fields`
    /// (each the field's JSON bytes) under requestId `<requestId>:<field>`; returns
    /// `<field>_encrypted` → b64(envelope JSON). Keys are derived in one batch.
    public static func encryptMultipart(
        _ fields: [String: Data], secret: String, timestamp: String,
        requestId: String
    ) throws(HallmarkCryptoError) -> [String: String] {
        let names = multipartFields.filter { fields[$0] != nil }
        let keys = try keys(
            secret: secret,
            contexts: names.map {
                KeyContext(timestamp: timestamp, requestId: requestId + ":" + $0)
            })
        var out: [String: String] = [:]
        for (name, key) in zip(names, keys) {
            let envelope = try encrypt(fields[name]!, keys: key, timestamp: timestamp)
            out[name + "_encrypted"] = Base64.encode(try envelope.jsonData())
        }
        return out
    }

    /// Multipart: decrypts the `<field>_encrypted` values present in `fields` back to
    /// `<field>` → JSON bytes.
    public static func decryptMultipart(
        _ fields: [String: String], secret: String,
        requestId: String
    ) throws(HallmarkCryptoError) -> [String: Data] {
        var envelopes: [(String, SmileIDEnvelope)] = []
        for name in multipartFields {
            guard let value = fields[name + "_encrypted"] else { continue }
            let envelope = try SmileIDEnvelope.parse(Base64.decode(value))
            try checkHeader(envelope)
            envelopes.append((name, envelope))
        }
        let keys = try keys(
            secret: secret,
            contexts: envelopes.map {
                KeyContext(timestamp: $0.1.timestamp, requestId: requestId + ":" + $0.0)
            })
        var out: [String: Data] = [:]
        for ((name, envelope), key) in zip(envelopes, keys) {
            out[name] = try decrypt(envelope, keys: key)
        }
        return out
    }
}
