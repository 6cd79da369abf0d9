import Foundation
import HallmarkTestSupport
import Testing
@testable import HallmarkCrypto

@Suite(.timeLimit(.minutes(2))) struct EncryptionTests {
    /// Round trips through every ENC-1 request shape, plus tampering of each envelope field.
    @Test func enc1RoundTripsAndTamper() throws {
        let keys = try SmileIDEncryption.keys(secret: "s3cret", timestamp: vectorTimestamp, requestId: "r-9")
        var rng = SplitMix64(seed: 42)
        for size in [0, 1, 15, 16, 17, 1000] {
            let plain = rng.bytes(size)
            let envelope = try SmileIDEncryption.encrypt(plain, keys: keys, timestamp: vectorTimestamp)
            let parsed = try SmileIDEnvelope.parse(envelope.jsonData())
            #expect(parsed == envelope)
            #expect(try SmileIDEncryption.decrypt(parsed, keys: keys) == plain)
            for field in [\SmileIDEnvelope.iv, \.authTag, \.encryptedData] where !(size == 0 && field == \.encryptedData) {
                let bytes = try Base64.decode(envelope[keyPath: field])
                for i in 0..<bytes.count {
                    var bad = envelope
                    bad[keyPath: field] = Base64.encode(flipped(bytes, at: i))
                    expectCode(.authenticationFailed) { _ = try SmileIDEncryption.decrypt(bad, keys: keys) }
                }
            }
        }
        var wrongVersion = try SmileIDEncryption.encrypt(Data("x".utf8), keys: keys, timestamp: vectorTimestamp)
        wrongVersion.version = "2.0"
        expectCode(.unsupportedVersion) { _ = try SmileIDEncryption.decrypt(wrongVersion, keys: keys) }
    }

    @Test func enc1BodyAndMultipart() throws {
        let zip = Data([0x50, 0x4b, 0x03, 0x04]) + Data(repeating: 9, count: 100)
        let (body, headers) = try SmileIDEncryption.encryptBody(zip, secret: "s", timestamp: vectorTimestamp, requestId: "req")
        #expect(
            headers == [
                "SmileID-Encryption-Version": "1.0", "SmileID-Request-ID": "req",
                "SmileID-Content-Encrypted": "true", "Content-Type": "application/octet-stream",
            ])
        let json = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        #expect(Set(json?.keys.map { $0 } ?? []) == ["version", "algorithm", "iv", "auth_tag", "encrypted_data", "timestamp"])
        #expect(try SmileIDEncryption.decryptBody(body, secret: "s", requestId: "req") == zip)
        expectCode(.authenticationFailed) { _ = try SmileIDEncryption.decryptBody(body, secret: "s", requestId: "other") }

        let fields = [
            "partner_params": Data(#"{"job_id":"1"}"#.utf8), "metadata": Data("[]".utf8),
            "selfie": Data("IMG".utf8),
        ]
        let encrypted = try SmileIDEncryption.encryptMultipart(fields, secret: "s", timestamp: vectorTimestamp, requestId: "req")
        #expect(Set(encrypted.keys) == ["partner_params_encrypted", "metadata_encrypted"])
        // Each field's envelope uses requestId "<requestId>:<field>".
        let pp = try SmileIDEnvelope.parse(Base64.decode(encrypted["partner_params_encrypted"]!))
        #expect(try SmileIDEncryption.decrypt(pp, secret: "s", requestId: "req:partner_params") == fields["partner_params"])
        let back = try SmileIDEncryption.decryptMultipart(encrypted, secret: "s", requestId: "req")
        #expect(back == ["partner_params": fields["partner_params"]!, "metadata": fields["metadata"]!])
    }

    @Test func malformedEnvelopes() {
        for bad in [
            "", "{", "[]", #"{"version":"1.0"}"#,
            #"{"version":"1.0","algorithm":"AES-256-GCM","iv":1,"auth_tag":"","encrypted_data":"","timestamp":"t"}"#,
        ] {
            expectCode(.malformedJSON) { _ = try SmileIDEnvelope.parse(Data(bad.utf8)) }
        }
        let keys = SmileIDEncryption.Keys(encKey: Data(count: 32), macKey: Data(count: 32))
        let badIV = SmileIDEnvelope(iv: "AAAA", authTag: Base64.encode(Data(count: 16)), encryptedData: "", timestamp: "t")
        expectCode(.invalidLength) { _ = try SmileIDEncryption.decrypt(badIV, keys: keys) }
        let badB64 = SmileIDEnvelope(iv: "%%%", authTag: "", encryptedData: "", timestamp: "t")
        expectCode(.malformedBase64) { _ = try SmileIDEncryption.decrypt(badB64, keys: keys) }
    }

    @Test func invisoRoundTripTamperAndDirections() throws {
        let client = try X25519.generate()
        let response = try InvisoHandshake.respond(clientPublicKeyBase64: Base64.encode(client.publicKey))
        #expect(response.status == "key_exchange_complete")
        let clientKey = try InvisoHandshake.clientSessionKey(
            clientPrivateKey: client.privateKey,
            gatewayPublicKey: response.gatewayPublicKey)
        #expect(clientKey == response.sessionKey)
        let session = try InvisoSession(sessionKey: clientKey)
        var rng = SplitMix64(seed: 7)
        for counter: UInt64 in [0, 1, 999, UInt64(Int64.max)] {
            let plain = rng.bytes(Int(counter % 50) + 1)
            let message = try session.seal(plain, direction: .gatewayToClient, counter: counter)
            let wire = try message.jsonData()
            #expect(try session.open(InvisoWireMessage.parse(wire), direction: .gatewayToClient) == plain)
            expectCode(.authenticationFailed) { _ = try session.open(message, direction: .clientToGateway) }
            var other = message
            other.counter = counter == 0 ? 1 : counter - 1
            expectCode(.authenticationFailed) { _ = try session.open(other, direction: .gatewayToClient) }
            for field in [\InvisoWireMessage.nonce, \.ciphertext, \.tag] {
                let bytes = try Base64.decode(message[keyPath: field])
                for i in 0..<bytes.count {
                    var bad = message
                    bad[keyPath: field] = Base64.encode(flipped(bytes, at: i, mask: 0x80))
                    expectCode(.authenticationFailed) { _ = try session.open(bad, direction: .gatewayToClient) }
                }
            }
        }
    }

    @Test func invisoRejectsBadKeysAndMessages() throws {
        // Low-order points give an all-zero shared secret.
        for point in [
            Data(count: 32), Data([1]) + Data(count: 31),
            hex("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800"),
        ] {
            expectCode(.weakSharedSecret) { _ = try InvisoHandshake.respond(clientPublicKey: point) }
        }
        expectCode(.invalidLength) { _ = try InvisoHandshake.respond(clientPublicKeyBase64: Base64.encode(Data(count: 31))) }
        expectCode(.malformedBase64) { _ = try InvisoHandshake.respond(clientPublicKeyBase64: "not base64!") }
        expectCode(.invalidKey) { _ = try InvisoHandshake.respond(clientPublicKey: Data(count: 33)) }
        expectCode(.invalidKey) { _ = try InvisoSession(sessionKey: Data(count: 16)) }

        for bad in [
            #"{"version":1,"counter":99999999999999999999,"nonce":"","ciphertext":"","tag":""}"#,
            #"{"version":1,"counter":-1,"nonce":"","ciphertext":"","tag":""}"#,
            #"{"version":1,"counter":1.5,"nonce":"","ciphertext":"","tag":""}"#,
            #"{"version":1,"counter":9223372036854775808,"nonce":"","ciphertext":"","tag":""}"#,
            #"{"version":1,"counter":1,"nonce":"","#, #"{"version":1}"#,
        ] {
            expectCode(.malformedJSON) { _ = try InvisoWireMessage.parse(Data(bad.utf8)) }
        }
        expectCode(.unsupportedVersion) {
            _ = try InvisoWireMessage.parse(Data(#"{"version":2,"counter":1,"nonce":"","ciphertext":"","tag":""}"#.utf8))
        }
    }

    @Test func counterRule() {
        #expect(InvisoCounterRule.check(lastAccepted: nil, received: 0) == .accept)
        #expect(InvisoCounterRule.check(lastAccepted: nil, received: 998) == .accept)
        #expect(InvisoCounterRule.check(lastAccepted: nil, received: 999) == .gapTooLarge)
        #expect(InvisoCounterRule.check(lastAccepted: 5, received: 6) == .accept)
        #expect(InvisoCounterRule.check(lastAccepted: 5, received: 5) == .replay)
        #expect(InvisoCounterRule.check(lastAccepted: 5, received: 0) == .replay)
        #expect(InvisoCounterRule.check(lastAccepted: 5, received: 1004) == .accept)
        #expect(InvisoCounterRule.check(lastAccepted: 5, received: 1005) == .gapTooLarge)
        #expect(InvisoCounterRule.check(lastAccepted: 0, received: UInt64.max) == .gapTooLarge)
        #expect(InvisoCounterRule.check(lastAccepted: UInt64.max - 1, received: UInt64.max) == .accept)
    }
}
