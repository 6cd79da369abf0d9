import Foundation
import HallmarkCrypto

extension CryptoTool {
    /// `{session_key_b64, direction, message}` → `{plaintext_b64, counter}`. Direction is
    /// `client_to_gateway` / `gateway_to_client` (or 1 / 2).
    static func e2eeOpen(_ input: CryptoToolInput) throws(CryptoToolError) -> [String: Any] {
        let key = try input.base64("session_key_b64")
        let direction: InvisoDirection
        switch (try? input.optionalString("direction")) ?? nil {
        case "client_to_gateway"?: direction = .clientToGateway
        case "gateway_to_client"?: direction = .gatewayToClient
        default:
            guard let raw = try? input.int("direction"), let byte = UInt8(exactly: raw),
                let parsed = InvisoDirection(rawValue: byte)
            else {
                throw CryptoToolError("malformed_json", "direction must be client_to_gateway or gateway_to_client")
            }
            direction = parsed
        }
        let messageData = try input.objectData("message")
        let (plaintext, counter) = try CryptoToolError.wrap {
            let message = try InvisoWireMessage.parse(messageData)
            return (try InvisoSession(sessionKey: key).open(message, direction: direction), message.counter)
        }
        return ["plaintext_b64": Base64.encode(plaintext), "counter": counter]
    }
}
