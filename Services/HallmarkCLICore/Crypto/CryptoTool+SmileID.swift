import Foundation
import HallmarkCrypto

extension CryptoTool {
    /// `{secret, timestamp, headers?, payload_b64?}` → `{mac}`.
    static func smileIDSign(_ input: CryptoToolInput) throws(CryptoToolError) -> [String: Any] {
        let secret = try input.string("secret"), timestamp = try input.string("timestamp")
        let headers = try input.stringMap("headers"), payload = try input.optionalBase64("payload_b64")
        let mac = try CryptoToolError.wrap {
            try SmileIDSignature.sign(secret: secret, timestamp: timestamp, headers: headers, payload: payload)
        }
        return ["mac": mac]
    }

    /// `{secret | secrets, timestamp, headers?, payload_b64?, mac}` → `{valid, secret_index, canonical_body}`.
    static func smileIDVerify(_ input: CryptoToolInput) throws(CryptoToolError) -> [String: Any] {
        let secrets = input.has("secrets") ? try input.stringArray("secrets") : [try input.string("secret")]
        let timestamp = try input.string("timestamp"), mac = try input.string("mac")
        let headers = try input.stringMap("headers"), payload = try input.optionalBase64("payload_b64")
        let result = try CryptoToolError.wrap {
            try SmileIDSignature.verify(mac: mac, secrets: secrets, timestamp: timestamp, headers: headers, payload: payload)
        }
        guard let result else { return ["valid": false, "secret_index": NSNull(), "canonical_body": false] }
        return ["valid": true, "secret_index": result.secretIndex, "canonical_body": result.usedCanonicalBody]
    }

    /// `{secret, timestamp, files: [{name, content_b64}]}` → `{mac, security_info}`.
    static func smileIDSignFiles(_ input: CryptoToolInput) throws(CryptoToolError) -> [String: Any] {
        let secret = try input.string("secret"), timestamp = try input.string("timestamp")
        var files: [SmileIDFileSignature.File] = []
        for file in try input.objects("files") {
            files.append(SmileIDFileSignature.File(name: try file.string("name"), contents: try file.base64("content_b64")))
        }
        let mac = try CryptoToolError.wrap { try SmileIDFileSignature.sign(secret: secret, timestamp: timestamp, files: files) }
        return ["mac": mac, "security_info": ["mac": mac, "timestamp": timestamp]]
    }

    /// `{secret, timestamp, request_id, plaintext_b64, iv_b64?}` → the ENC-1 envelope.
    static func enc1Encrypt(_ input: CryptoToolInput) throws(CryptoToolError) -> [String: Any] {
        let secret = try input.string("secret"), timestamp = try input.string("timestamp")
        let requestId = try input.string("request_id"), plaintext = try input.base64("plaintext_b64")
        let iv = try input.optionalBase64("iv_b64")
        let envelope = try CryptoToolError.wrap {
            try SmileIDEncryption.encrypt(plaintext, secret: secret, timestamp: timestamp, requestId: requestId, iv: iv)
        }
        return [
            "version": envelope.version, "algorithm": envelope.algorithm, "iv": envelope.iv,
            "auth_tag": envelope.authTag, "encrypted_data": envelope.encryptedData, "timestamp": envelope.timestamp,
        ]
    }

    /// `{secret, request_id, envelope}` → `{plaintext_b64}`.
    static func enc1Decrypt(_ input: CryptoToolInput) throws(CryptoToolError) -> [String: Any] {
        let secret = try input.string("secret"), requestId = try input.string("request_id")
        let envelope = try input.objectData("envelope")
        let plaintext = try CryptoToolError.wrap {
            try SmileIDEncryption.decrypt(SmileIDEnvelope.parse(envelope), secret: secret, requestId: requestId)
        }
        return ["plaintext_b64": Base64.encode(plaintext)]
    }
}
