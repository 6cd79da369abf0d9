import Foundation
import HallmarkCrypto

extension FuzzTarget {
    /// E2EE-1: the wire message, opening it, sealing and the X25519 handshake.
    static let e2ee = FuzzTarget(
        name: "e2ee",
        summary: "E2EE-1 wire message parse and open; seal/open round trip; X25519 handshake agreement and key checks",
        run: E2EETarget.run, seeds: E2EETarget.seeds, dictionary: E2EETarget.dictionary)
}

enum E2EETarget {
    static let sessionKey = Data(SHA256Hash.digest(Data("hallmark-fuzz-session".utf8)))
    static let gatewayPrivateKey = Data(SHA256Hash.digest(Data("hallmark-fuzz-gateway".utf8)))

    static func run(_ bytes: [UInt8]) throws(FuzzFinding) {
        let session: InvisoSession
        do { session = try InvisoSession(sessionKey: sessionKey) } catch {
            throw FuzzFinding("a 32-byte session key was refused")
        }

        // The bytes as a wire message from a client.
        if let message = try? InvisoWireMessage.parse(bytes) {
            let opened = try? session.open(message, direction: .clientToGateway)
            try require(
                message.counter <= InvisoWireMessage.maximumCounter || opened == nil, "a counter beyond the maximum opened")
        }

        // The bytes as plaintext: what is sealed opens, in its direction only.
        var input = FuzzBytes(bytes)
        let counter = input.u64() & InvisoWireMessage.maximumCounter
        let plaintext = Data(input.remaining)
        do {
            let sealed = try session.seal(plaintext, direction: .gatewayToClient, counter: counter)
            let reread = try InvisoWireMessage.parse(sealed.jsonData())
            try require(reread == sealed, "a sealed wire message reads back differently")
            try require(
                try session.open(reread, direction: .gatewayToClient) == plaintext, "a sealed message opens to other bytes")
            try require(
                (try? session.open(reread, direction: .clientToGateway)) == nil, "a message opened in the other direction")
        } catch let finding as FuzzFinding {
            throw finding
        } catch {
            throw FuzzFinding("sealing or opening a valid message threw (\(error))")
        }

        // The first 32 bytes as a client's private key: both sides derive one session key.
        let clientPrivate = Data(bytes.prefix(32)) + Data(repeating: 0, count: max(0, 32 - bytes.count))
        if let client = try? X25519.keyPair(privateKey: clientPrivate),
            let response = try? InvisoHandshake.respond(clientPublicKey: client.publicKey, gatewayPrivateKey: gatewayPrivateKey)
        {
            let clientKey = try? InvisoHandshake.clientSessionKey(
                clientPrivateKey: clientPrivate, gatewayPublicKey: response.gatewayPublicKey)
            try require(clientKey == response.sessionKey, "the two sides of a handshake derive different session keys")
        }
        // The raw bytes as a client's public key, of any length: refused or answered, never a trap;
        // an all-zero key (a low-order point) is always refused.
        let raw = Data(bytes.prefix(40))
        let answered = (try? InvisoHandshake.respond(clientPublicKey: raw, gatewayPrivateKey: gatewayPrivateKey)) != nil
        try require(!answered || raw.count == X25519.keyLength, "a public key of \(raw.count) bytes was accepted")
        try require(!answered || raw.contains { $0 != 0 }, "an all-zero public key was accepted")
    }

    static func seeds() throws -> [[UInt8]] {
        let session = try InvisoSession(sessionKey: sessionKey)
        return try [Data(#"{"type":"chat","text":"hi"}"#.utf8), Data(), Data(repeating: 0xAB, count: 300)].enumerated().map {
            n, text in
            Array(try session.seal(text, direction: .clientToGateway, counter: UInt64(n + 1)).jsonData())
        }
    }

    static let dictionary = [
        "\"version\"", "\"counter\"", "\"nonce\"", "\"ciphertext\"", "\"tag\"", "9223372036854775807",
        "9223372036854775808", "18446744073709551615", "-1", "1.0", "1e3",
    ]
}
