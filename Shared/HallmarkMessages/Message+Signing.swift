import Foundation
import HallmarkCore
import HallmarkCrypto

extension Message where Body == AdminCommand {
    /// This command with `key_id` set and signed by the key pair of `seed` (32 bytes): the
    /// signature covers every member but itself, the envelope's included
    /// (``AdminCommand/signedBytes(of:)``).
    public func signed(keyID: String, seed: some DataProtocol) throws -> Self {
        var command = self
        command.keyID = keyID
        command.signature = nil
        guard case .object(let fields) = try JSONReader.parse(try JSONCoding.encode(command)) else {
            throw JSONCodingError(path: "(root)", reason: "not an object")
        }
        command.signature = Base64.encode(try Ed25519.sign(AdminCommand.signedBytes(of: fields), seed: seed))
        return command
    }
}

extension Message where Body == PrivacyRequest {
    /// This request with `key_id` set and signed with the operator's Ed25519 `seed`.
    public func signed(keyID: String, seed: some DataProtocol) throws -> Self {
        var request = self
        request.keyID = keyID
        request.signature = ""
        request.signature = Base64.encode(try Ed25519.sign(try request.signingBytes(), seed: seed))
        return request
    }

    /// The bytes the signature covers: the whole message's canonical JSON without
    /// `signature`, so its id and `produced_at` are bound too (a replay keeps both).
    public func signingBytes() throws(JSONCodingError) -> [UInt8] {
        try CanonicalSigning.bytes(of: self, without: ["signature"])
    }

    /// Whether `publicKey` (the key configured for `key_id`) signed exactly this request.
    public func verify(publicKey: some DataProtocol) -> Bool {
        guard let signature = try? Base64.decode(body.signature, length: 64), let bytes = try? signingBytes() else {
            return false
        }
        return Ed25519.verify(signature: signature, message: bytes, publicKey: publicKey)
    }
}
