import Foundation
import HallmarkCLICore
import Testing
@testable import HallmarkCrypto

@Suite(.timeLimit(.minutes(2))) struct CryptoToolTests {
    func run(_ command: String, _ input: [String: Any]) throws -> (Int32, [String: Any]) {
        let output = CryptoTool.run(command: command, input: try JSONSerialization.data(withJSONObject: input))
        #expect(output.json.last == UInt8(ascii: "\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: output.json) as? [String: Any])
        return (output.exitCode, object)
    }

    @Test func smileIDSignVerifyAndFiles() throws {
        let payload = Base64.encode(Data("test payload".utf8))
        let (code, signed) = try run(
            "smileid-sign", ["secret": "test-secret", "timestamp": vectorTimestamp, "payload_b64": payload])
        #expect(code == 0)
        #expect(signed["mac"] as? String == "d0z1cqkMp2cMNM9risySEwXvNJOAoG+dHRv+tBaokKk=")

        let (_, verified) = try run(
            "smileid-verify",
            [
                "secrets": ["x", "test-secret"], "timestamp": vectorTimestamp,
                "payload_b64": payload, "mac": signed["mac"]!,
            ])
        #expect(verified["valid"] as? Bool == true)
        #expect(verified["secret_index"] as? Int == 1)
        let (_, rejected) = try run(
            "smileid-verify",
            [
                "secret": "nope", "timestamp": vectorTimestamp,
                "payload_b64": payload, "mac": signed["mac"]!,
            ])
        #expect(rejected["valid"] as? Bool == false)

        let files: [[String: Any]] = [
            ["name": "info.json", "content_b64": Base64.encode(Data(#"{"a":1}"#.utf8))],
            ["name": "si_liveness_1.jpg", "content_b64": Base64.encode(Data("LIV".utf8))],
            ["name": "si_selfie_1.jpg", "content_b64": Base64.encode(hex("ffd8ffe0") + Data("JPEGDATA".utf8))],
        ]
        let (_, fileMac) = try run("smileid-sign-files", ["secret": "test-secret", "timestamp": vectorTimestamp, "files": files])
        #expect(fileMac["mac"] as? String == "7SkcJKyTMJ8YPk0myAFnb4ZqRCj2S5azfXqzinBVRDc=")
    }

    @Test func enc1RoundTrip() throws {
        let plaintext = Base64.encode(Data(#"{"job_id":"job-1"}"#.utf8))
        let (code, envelope) = try run(
            "enc1-encrypt",
            [
                "secret": "test-secret", "timestamp": vectorTimestamp,
                "request_id": "req-1", "plaintext_b64": plaintext,
                "iv_b64": Base64.encode(hex("000102030405060708090a0b")),
            ])
        #expect(code == 0)
        #expect(envelope["auth_tag"] as? String == "amVGVBanJvS7NoTlXi/QWA==")
        #expect(envelope["encrypted_data"] as? String == "+Wxvj0z8ivL82L4MIn34AZuZ")
        let (_, opened) = try run("enc1-decrypt", ["secret": "test-secret", "request_id": "req-1", "envelope": envelope])
        #expect(opened["plaintext_b64"] as? String == plaintext)
        let (failCode, failed) = try run("enc1-decrypt", ["secret": "wrong", "request_id": "req-1", "envelope": envelope])
        #expect(failCode != 0)
        #expect(failed["error"] as? String == "authentication_failed")
    }

    @Test func e2eeOpen() throws {
        let session = try InvisoSession(sessionKey: hex("d20eb86e7488a8cbab870ff14935b4097c6a0260f3c54ebaae0f40a3fe16ded4"))
        let message = try session.seal(
            Data("Hello, World!".utf8), direction: .clientToGateway, counter: 0,
            nonce: hex("000102030405060708090a0b"))
        let wire = try JSONSerialization.jsonObject(with: message.jsonData())
        let key = Base64.encode(session.sessionKey)
        let (code, out) = try run("e2ee-open", ["session_key_b64": key, "direction": "client_to_gateway", "message": wire])
        #expect(code == 0)
        #expect(out["plaintext_b64"] as? String == Base64.encode(Data("Hello, World!".utf8)))
        let (badCode, bad) = try run("e2ee-open", ["session_key_b64": key, "direction": 2, "message": wire])
        #expect(badCode != 0 && bad["error"] as? String == "authentication_failed")
    }

    @Test func birthmarkDeriveAndOpen() throws {
        let masterHex = String(repeating: "0123456789abcdef", count: 4)
        let (_, reference) = try run("bm-derive", ["master_hex": masterHex, "key_index": 42])
        #expect(reference["key_hex"] as? String == "c13b03997112013e09fc642cd46adb24516c28b46cea50f7fc8e712e62e4cfd7")
        let (_, mobile) = try run("bm-derive", ["master_hex": masterHex, "key_index": 42, "format": "mobile"])
        #expect(mobile["key_hex"] as? String == "3d82bc38c7b4675a5fa3af803f7e05cb73f0a3c75dde1f19d2f4a4450efc488a")

        let token: [String: Any] = [
            "master_hex": masterHex, "table_id": 5, "key_index": 42,
            "ciphertext": "931056d7b8175b08806799160f675e830c66ef209e7f6d8df39a564ee0df66f1",
            "auth_tag": "13039450b7b065044952ee3c7356df5d", "nonce": "000102030405060708090a0b",
        ]
        let (code, opened) = try run("bm-open-token", token)
        #expect(code == 0)
        #expect(opened["nuc_hex"] as? String == "53923bd9be2f046be19715e5df8e5e6b108c254e01dadff3fd2cb79ca96cfe67")
        var tampered = token
        tampered["auth_tag"] = "03039450b7b065044952ee3c7356df5d"
        let (badCode, bad) = try run("bm-open-token", tampered)
        #expect(badCode != 0 && bad["error"] as? String == "authentication_failed")

        let nuc = hex("53923bd9be2f046be19715e5df8e5e6b108c254e01dadff3fd2cb79ca96cfe67")
        let mobileToken = try BirthmarkMobileToken.seal(
            nucHash: nuc, master: hex(masterHex), tableReferences: [1, 2, 3],
            keyIndices: [4, 5, 6], used: 2)
        let (mobileCode, mobileOpened) = try run(
            "bm-open-token",
            [
                "master_hex": masterHex, "encrypted_nuc_token": mobileToken.encryptedNucToken,
                "table_references": [1, 2, 3], "key_indices": [4, 5, 6],
            ])
        #expect(mobileCode == 0)
        #expect(mobileOpened["nuc_hex"] as? String == Hex.encode(nuc))
        #expect(mobileOpened["table_id"] as? Int == 3)
    }

    @Test func merkle() throws {
        let leaves = MerkleTreeTests.rfcLeaves.map { Hex.encode($0) }
        let (code, out) = try run("merkle", ["leaves_hex": leaves, "leaf_index": 5, "old_size": 3])
        #expect(code == 0)
        #expect(out["root_hex"] as? String == "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328")
        #expect(out["old_root_hex"] as? String == "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77")
        let inclusion = try #require(out["inclusion_proof"] as? [String]).map { hex($0) }
        #expect(
            MerkleTree.verifyInclusion(
                leafHash: MerkleTree.leafHash(MerkleTreeTests.rfcLeaves[5]), leafIndex: 5,
                treeSize: 8, proof: inclusion,
                root: hex("5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328")))
        let consistency = try #require(out["consistency_proof"] as? [String]).map { hex($0) }
        #expect(
            MerkleTree.verifyConsistency(
                oldSize: 3, newSize: 8,
                oldRoot: hex("aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77"),
                newRoot: hex("5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328"),
                proof: consistency))
        let (badCode, bad) = try run("merkle", ["leaves_hex": leaves, "leaf_index": 8])
        #expect(badCode != 0 && bad["error"] as? String == "invalid_argument")
    }

    @Test func badInputs() throws {
        for raw in ["", "[]", "{", "null", "42"] {
            let output = CryptoTool.run(command: "smileid-sign", input: Data(raw.utf8))
            #expect(output.exitCode != 0)
            let object = try JSONSerialization.jsonObject(with: output.json) as? [String: Any]
            #expect(object?["error"] as? String == "malformed_json")
        }
        let cases: [(String, [String: Any], String)] = [
            ("smileid-sign", ["timestamp": "t"], "malformed_json"),
            ("smileid-sign", ["secret": 1, "timestamp": "t"], "malformed_json"),
            ("smileid-sign", ["secret": "s", "timestamp": "t", "payload_b64": "%%"], "malformed_base64"),
            (
                "smileid-sign", ["secret": "s", "timestamp": "t", "headers": ["SmileID-A": "1", "smileid-a": "2"]],
                "duplicate_header"
            ),
            ("smileid-verify", ["secret": "s", "timestamp": "t", "mac": "AAAA"], "invalid_length"),
            ("bm-derive", ["master_hex": "abc", "key_index": 1], "malformed_hex"),
            ("bm-derive", ["master_hex": String(repeating: "00", count: 32), "key_index": 1.5], "malformed_json"),
            ("bm-derive", ["master_hex": String(repeating: "00", count: 32), "key_index": 1000], "invalid_argument"),
            ("bm-derive", ["master_hex": String(repeating: "00", count: 32), "key_index": true], "malformed_json"),
            ("bm-open-token", ["master_hex": String(repeating: "00", count: 32)], "malformed"),
            ("e2ee-open", ["session_key_b64": "AAAA", "direction": "sideways", "message": [:]], "malformed_json"),
            ("enc1-decrypt", ["secret": "s", "request_id": "r", "envelope": ["version": "1.0"]], "malformed_json"),
            ("nope", [:], "unknown_command"),
        ]
        for (command, input, expected) in cases {
            let (code, out) = try run(command, input)
            #expect(code != 0, "\(command)")
            #expect(out["error"] as? String == expected, "\(command) \(input)")
            #expect(out["message"] is String)
        }
        // Errors never echo secrets.
        let (_, out) = try run(
            "enc1-decrypt", ["secret": "very-secret-value", "request_id": "r", "envelope": ["version": "1.0"]])
        #expect(!(String(describing: out).contains("very-secret-value")))
    }
}
