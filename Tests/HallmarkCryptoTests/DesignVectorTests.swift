import Foundation
import Testing
@testable import HallmarkCrypto

/// Every ✔ vector of DESIGN.md §1.
@Suite(.timeLimit(.minutes(2))) struct DesignVectorTests {
    @Test func sign1VectorA() throws {
        let payload = Data(#"{"job_id":"job-1","user_id":"user-1"}"#.utf8)
        let data = try SmileIDSignature.signingData(headers: vectorHeaders, payload: payload)
        #expect(data.count == 185)
        #expect(
            SmileIDSignature.salt(dataCount: data.count, timestamp: vectorTimestamp)
                == Data("1852025-01-01T00:00:00.000Z".utf8))
        let key = try SmileIDSignature.key(secret: "test-secret", timestamp: vectorTimestamp, dataCount: data.count)
        #expect(Hex.encode(key) == "8fb37875dda37752d74918044a40e36134171333e404ac6de730f35af8742573")
        let mac = try SmileIDSignature.sign(
            secret: "test-secret", timestamp: vectorTimestamp,
            headers: vectorHeaders, payload: payload)
        #expect(mac == "NfIMuN27o4N21wG5w1/zpFWxD6IKLAKVcDKdj+Nc+3I=")
    }

    @Test func sign1VectorB() throws {
        let mac = try SmileIDSignature.sign(secret: "test-secret", timestamp: vectorTimestamp, headers: vectorHeaders)
        #expect(mac == "bFCfQxhjFvDLCq+opLmD9TfK6IQR3Kwwwy2qWJYMldI=")
    }

    @Test func sign1VectorC() throws {
        let mac = try SmileIDSignature.sign(
            secret: "test-secret", timestamp: vectorTimestamp,
            payload: Data("test payload".utf8))
        #expect(mac == "d0z1cqkMp2cMNM9risySEwXvNJOAoG+dHRv+tBaokKk=")
    }

    @Test func signFilesVectorD() throws {
        let files = [
            SmileIDFileSignature.File(name: "si_selfie_1.jpg", contents: hex("ffd8ffe0") + Data("JPEGDATA".utf8)),
            SmileIDFileSignature.File(name: "info.json", contents: Data(#"{"a":1}"#.utf8)),
            SmileIDFileSignature.File(name: "si_liveness_1.jpg", contents: Data("LIV".utf8)),
        ]
        #expect(SmileIDFileSignature.signingData(files: files) == Data(#"{"a":1}TElW/9j/4EpQRUdEQVRB"#.utf8))
        let mac = try SmileIDFileSignature.sign(secret: "test-secret", timestamp: vectorTimestamp, files: files)
        #expect(mac == "7SkcJKyTMJ8YPk0myAFnb4ZqRCj2S5azfXqzinBVRDc=")
        let info = Data(#"{"timestamp":"2025-01-01T00:00:00.000Z","mac":"7SkcJKyTMJ8YPk0myAFnb4ZqRCj2S5azfXqzinBVRDc="}"#.utf8)
        #expect(try SmileIDFileSignature.verify(securityInfo: info, secrets: ["old", "test-secret"], files: files) == 1)
    }

    @Test func enc1Vector() throws {
        let keys = try SmileIDEncryption.keys(secret: "test-secret", timestamp: vectorTimestamp, requestId: "req-1")
        #expect(Hex.encode(keys.encKey) == "fa9cf0a488f65d846ebfc9dc26b204ec55e3a5949e030cf3dbb1b00bf681bd4d")
        let envelope = try SmileIDEncryption.encrypt(
            Data(#"{"job_id":"job-1"}"#.utf8), keys: keys,
            timestamp: vectorTimestamp, iv: hex("000102030405060708090a0b"))
        #expect(envelope.authTag == "amVGVBanJvS7NoTlXi/QWA==")
        #expect(envelope.encryptedData == "+Wxvj0z8ivL82L4MIn34AZuZ")
        #expect(envelope.version == "1.0" && envelope.algorithm == "AES-256-GCM")
        #expect(try SmileIDEncryption.decrypt(envelope, keys: keys) == Data(#"{"job_id":"job-1"}"#.utf8))
    }

    @Test func e2ee1Vector() throws {
        let client = Data(0x00...0x1f), gateway = Data(0x20...0x3f)
        let clientPub = try X25519.keyPair(privateKey: client).publicKey
        let shared = try X25519.sharedSecret(privateKey: gateway, publicKey: clientPub)
        #expect(Hex.encode(shared) == "9663aa1da97e848a914a436d04163dfbb89178f107f1b5b77ed3854203382854")
        let response = try InvisoHandshake.respond(clientPublicKey: clientPub, gatewayPrivateKey: gateway)
        #expect(Hex.encode(response.sessionKey) == "d20eb86e7488a8cbab870ff14935b4097c6a0260f3c54ebaae0f40a3fe16ded4")
        #expect(
            try InvisoHandshake.clientSessionKey(
                clientPrivateKey: client,
                gatewayPublicKey: response.gatewayPublicKey) == response.sessionKey)
        let session = try InvisoSession(sessionKey: response.sessionKey)
        #expect(
            Hex.encode(try session.messageKey(direction: .clientToGateway, counter: 0))
                == "026fd279d5a177b33b9bc50ab8eb4f7e26bc6808a215bd0a6b2d0fea934015c6")
        let message = try session.seal(
            Data("Hello, World!".utf8), direction: .clientToGateway, counter: 0,
            nonce: hex("000102030405060708090a0b"))
        #expect(message.ciphertext == "qLHZZ2kxsjQBMREBIg==")
        #expect(message.tag == "VtSKr7KW5uPSKgsjUFxR3w==")
        #expect(
            try session.open(InvisoWireMessage.parse(message.jsonData()), direction: .clientToGateway)
                == Data("Hello, World!".utf8))
    }

    @Test func bmTokenVectors() throws {
        let master = hex(String(repeating: "0123456789abcdef", count: 4))
        #expect(
            Hex.encode(try BirthmarkKeys.derive(master: master, keyIndex: 42))
                == "c13b03997112013e09fc642cd46adb24516c28b46cea50f7fc8e712e62e4cfd7")
        #expect(
            Hex.encode(try BirthmarkKeys.derive(master: Data(count: 32), keyIndex: 0))
                == "d5bd264ea28a51c944e81eb31eab7d755623cd7bba2c0cf5253f2668ce870b38")
        #expect(
            Hex.encode(try BirthmarkKeys.derive(master: master, keyIndex: 42, format: .mobile))
                == "3d82bc38c7b4675a5fa3af803f7e05cb73f0a3c75dde1f19d2f4a4450efc488a")
        let nuc = hex("53923bd9be2f046be19715e5df8e5e6b108c254e01dadff3fd2cb79ca96cfe67")
        let token = try BirthmarkCameraToken.seal(
            nucHash: nuc, master: master, tableId: 7, keyIndex: 42,
            nonce: hex("000102030405060708090a0b"))
        #expect(token.ciphertext == "931056d7b8175b08806799160f675e830c66ef209e7f6d8df39a564ee0df66f1")
        #expect(token.authTag == "13039450b7b065044952ee3c7356df5d")
        #expect(token.nonce == "000102030405060708090a0b")
        #expect(try token.open(master: master) == nuc)
    }

    /// The packed reference format is the reference vector's bytes as ciphertext ‖ nonce ‖ tag,
    /// told from the mobile-app format by its 60-byte length.
    @Test func bmTokenPackedVector() throws {
        let master = hex(String(repeating: "0123456789abcdef", count: 4))
        let nuc = hex("53923bd9be2f046be19715e5df8e5e6b108c254e01dadff3fd2cb79ca96cfe67")
        let packed = try BirthmarkMobileToken.seal(
            nucHash: nuc, master: master, tableReferences: [3, 7, 9],
            keyIndices: [500, 42, 1], used: 1, nonce: hex("000102030405060708090a0b"),
            packing: .packed)
        let expected = hex(
            "931056d7b8175b08806799160f675e830c66ef209e7f6d8df39a564ee0df66f1"
                + "000102030405060708090a0b" + "13039450b7b065044952ee3c7356df5d")
        #expect(try Base64.decode(packed.encryptedNucToken) == expected)
        #expect(try packed.packing() == .packed)
        #expect(try packed.open(master: master, keyIndex: 42) == nuc)
        #expect(throws: HallmarkCryptoError.self) { try packed.open(master: master, keyIndex: 500) }
        let opened = BirthmarkTokenValidator.open(.mobile(packed), masterKeys: [7: master, 3: Data(count: 32)])
        #expect((try? opened.get())?.nucHash == nuc && (try? opened.get())?.tableId == 7)
        let mobile = try BirthmarkMobileToken.seal(
            nucHash: nuc, master: master, tableReferences: [3, 7, 9],
            keyIndices: [500, 42, 1], used: 1)
        #expect(try mobile.packing() == .mobile)
        var short = packed
        short.encryptedNucToken = Base64.encode(expected.prefix(59))
        #expect(throws: HallmarkCryptoError.self) { try short.packing() }
    }

    @Test func bmLogVector() {
        let leaves = MerkleTreeTests.rfcLeaves
        #expect(
            Hex.encode(MerkleTree.root(leafHashes: leaves.map(MerkleTree.leafHash)))
                == "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328")
    }
}
