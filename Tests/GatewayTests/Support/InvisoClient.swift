import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages

/// Plays an E2EE-1 client: makes a key pair, builds the handshake, and once the gateway's key
/// is known seals inbound messages and opens outbound ones.
struct InvisoClient {
    let sessionID: String
    let pair: X25519.KeyPair
    var session: InvisoSession?

    init(sessionID: String = "s-\(UUID().uuidString.lowercased())") throws {
        self.sessionID = sessionID
        pair = try X25519.generate()
    }

    func handshake() -> Message<E2EEHandshake> {
        Message(E2EEHandshake(sessionID: sessionID, clientPublicKey: pair.publicKey.base64EncodedString()))
    }

    mutating func complete(_ result: Message<E2EEHandshakeResult>) throws {
        let gatewayKey = try Base64.decode(result.gatewayPublicKey ?? "", length: 32)
        session = try InvisoSession(
            sessionKey: InvisoHandshake.clientSessionKey(
                clientPrivateKey: pair.privateKey,
                gatewayPublicKey: gatewayKey))
    }

    func inbound(_ text: String, counter: UInt64) throws -> Message<E2EEInbound> {
        Message(
            E2EEInbound(
                sessionID: sessionID, message: try session!.seal(Data(text.utf8), direction: .clientToGateway, counter: counter)))
    }

    func open(_ outbound: Message<E2EEOutbound>) throws -> String {
        String(decoding: try session!.open(outbound.message!, direction: .gatewayToClient), as: UTF8.self)
    }
}
