import Foundation
import HallmarkCore
import HallmarkCrypto

extension Message where Body == AdminCommand {
    /// This command with `key_id` set and signed by the key pair of `seed` (32 bytes)
    /// (``OperatorSignature``).
    public func signed(keyID: String, seed: some DataProtocol) throws -> Self {
        var command = self
        command.keyID = keyID
        command.signature = try OperatorSignature.sign(command, seed: seed)
        return command
    }
}

extension Message where Body == PrivacyRequest {
    /// This request with `key_id` set and signed by the key pair of `seed` (32 bytes)
    /// (``OperatorSignature``).
    public func signed(keyID: String, seed: some DataProtocol) throws -> Self {
        var request = self
        request.keyID = keyID
        request.signature = try OperatorSignature.sign(request, seed: seed)
        return request
    }
}
