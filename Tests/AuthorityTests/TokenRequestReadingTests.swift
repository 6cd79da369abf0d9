import AuthorityCore
import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkKafka
import HallmarkMessages
import HallmarkRuntime
import Testing

/// How the authority reads a token request, as its stage does: the envelope, the schema, then
/// `TokenRequest` and the token's parts (``TokenProcessor/token(in:)``); and the DESIGN.md
/// BM-TOKEN vectors through it (no broker).
@Suite(.timeLimit(.minutes(2)))
struct TokenRequestReadingTests {
    static let nuc = "53923bd9be2f046be19715e5df8e5e6b108c254e01dadff3fd2cb79ca96cfe67"
    static var vectorToken: [String: Any] {
        [
            "ciphertext": "931056d7b8175b08806799160f675e830c66ef209e7f6d8df39a564ee0df66f1",
            "auth_tag": "13039450b7b065044952ee3c7356df5d", "nonce": "000102030405060708090a0b",
            "table_id": 7, "key_index": 42,
        ]
    }

    static func bytes(_ object: [String: Any]) -> [UInt8] {
        var o = object
        o["schema"] = "hallmark.token.request.v1"
        o["id"] = UUID().uuidString.lowercased()
        o["produced_at"] = "2026-01-01T00:00:00Z"
        return Array(try! JSONSerialization.data(withJSONObject: o))
    }

    /// The token and its parts, or nil where the stage would answer `malformed`: a body that
    /// breaks the schema never reaches the processor (`answer(invalid:)` answers it).
    static func read(_ bytes: [UInt8]) -> (token: BirthmarkToken, parts: AESGCM256.Sealed)? {
        guard let (header, fields) = try? EnvelopeHeader.read(bytes),
            MessageSchemas.schema(TokenRequest.schemaName)?.validate(.object(fields)) == nil
        else { return nil }
        let message = StageMessage(
            header: header,
            kafka: KafkaMessage(topic: "birthmark.token.requests", partition: 0, offset: 0, key: nil, value: bytes),
            fields: fields)
        return TokenProcessor.token(in: message).map { (token: $0.0, parts: $0.1) }
    }

    static func parse(_ bytes: [UInt8]) -> BirthmarkToken? { read(bytes)?.token }

    @Test func designVectorOpensToItsNUCHashThroughTheReader() throws {
        let token = try #require(Self.parse(Self.bytes(["camera_token": Self.vectorToken])))
        #expect(token.referencedTables == [7])
        // DESIGN's master is "0123456789abcdef" ×4 as text: 64 hex digits → 32 bytes.
        let master = try Hex.decode(String(repeating: "0123456789abcdef", count: 4), length: 32)
        let key = try BirthmarkKeys.derive(master: master, keyIndex: 42, format: .reference)
        #expect(Hex.encode(key) == "c13b03997112013e09fc642cd46adb24516c28b46cea50f7fc8e712e62e4cfd7")
        guard case .success(let opened) = BirthmarkTokenValidator.open(token, masterKeys: [7: master]) else {
            Issue.record("the DESIGN vector did not open")
            return
        }
        #expect(Hex.encode(opened.nucHash) == Self.nuc)
        #expect(BirthmarkTokenValidator.open(token, masterKeys: [8: master]) == .failure(.unknownTable))
        let mobileKey = try BirthmarkKeys.derive(master: master, keyIndex: 42, format: .mobile)
        #expect(Hex.encode(mobileKey) == "3d82bc38c7b4675a5fa3af803f7e05cb73f0a3c75dde1f19d2f4a4450efc488a")
    }

    @Test func refusesEveryMalformedShape() throws {
        let good = Self.vectorToken
        func with(_ key: String, _ value: Any?) -> [String: Any] {
            var t = good
            t[key] = value
            return ["camera_token": t]
        }
        let mobile: [String: Any] = [
            "encrypted_nuc_token": String(repeating: "A", count: 123) + "=",
            "table_references": [1, 2, 3], "key_indices": [4, 5, 6],
        ]
        #expect(Self.parse(Self.bytes(["camera_token": good])) != nil)
        #expect(Self.parse(Self.bytes(mobile)) != nil)
        let cases: [(String, [String: Any])] = [
            ("bad hex", with("ciphertext", String(repeating: "zz", count: 32))),
            ("upper-case and odd hex", with("nonce", "000102030405060708090a0")),
            ("short ciphertext", with("ciphertext", String(repeating: "ab", count: 31))),
            ("long tag", with("auth_tag", String(repeating: "ab", count: 17))),
            ("key index 1000", with("key_index", 1000)),
            ("negative key index", with("key_index", -1)),
            ("negative table", with("table_id", -1)),
            ("table out of range", with("table_id", 2_000_000)),
            ("fractional index", with("key_index", 4.5)),
            ("boolean index", with("key_index", true)),
            ("string table", with("table_id", "7")),
            ("missing tag", with("auth_tag", nil)),
            ("extra token field", with("image_hash", "00")),
            ("image hash beside a good token", ["camera_token": good, "image_hash": String(repeating: "0", count: 64)]),
            ("image hashes beside a good token", ["camera_token": good, "image_hashes": [] as [Any]]),
            ("unknown field", ["camera_token": good, "gps_hash": "00"]),
            ("both formats", ["camera_token": good].merging(mobile) { a, _ in a }),
            ("no token", [:]),
            ("two pairs", mobile.merging(["table_references": [1, 2]]) { _, b in b }),
            ("missing key indices", mobile.filter { $0.key != "key_indices" }),
            ("mobile bad base64", mobile.merging(["encrypted_nuc_token": "!!!"]) { _, b in b }),
            ("mobile short", mobile.merging(["encrypted_nuc_token": "AAAA"]) { _, b in b }),
            ("mobile index out of range", mobile.merging(["key_indices": [1, 2, 1000]]) { _, b in b }),
        ]
        for (name, body) in cases {
            #expect(Self.parse(Self.bytes(body)) == nil, "\(name) was accepted")
        }
        #expect(Self.parse(Array("not json".utf8)) == nil)
        #expect(Self.parse(Array("[1,2]".utf8)) == nil)
    }

    @Test func replayKeyIgnoresTheEnvelopeAndFollowsNonceAndCiphertext() throws {
        let a = try #require(Self.read(Self.bytes(["camera_token": Self.vectorToken])))
        let b = try #require(Self.read(Self.bytes(["camera_token": Self.vectorToken])))
        #expect(ReplayLedger.key(a.parts) == ReplayLedger.key(b.parts))
        var other = Self.vectorToken
        other["nonce"] = "000102030405060708090a0c"
        let c = try #require(Self.read(Self.bytes(["camera_token": other])))
        #expect(ReplayLedger.key(a.parts) != ReplayLedger.key(c.parts))
    }

    /// The stage reads a request's members directly; where it cannot (a form it does not take),
    /// the decoder does. Where both read, they read the same token.
    @Test func readingMembersAgreesWithDecoding() throws {
        let mobile: [String: Any] = [
            "encrypted_nuc_token": String(repeating: "A", count: 123) + "=",
            "table_references": [1, 2, 3], "key_indices": [4, 5, 6],
        ]
        // JSONSerialization writes 42.0 as 42: the fraction is written into the bytes.
        let reference = Self.bytes(["camera_token": Self.vectorToken])
        let fraction = Array(
            String(decoding: reference, as: UTF8.self).replacingOccurrences(of: "\"key_index\":42", with: "\"key_index\":42.0")
                .utf8)
        #expect(fraction != reference)
        var nullTag = Self.vectorToken
        nullTag["auth_tag"] = NSNull()
        let bodies: [(String, [UInt8], readsDirectly: Bool)] = [
            ("reference", reference, true),
            ("mobile", Self.bytes(mobile), true),
            ("an index written 42.0", fraction, false),
            ("a null tag", Self.bytes(["camera_token": nullTag]), false),
            ("a null layout beside the other", Self.bytes(mobile.merging(["camera_token": NSNull()]) { a, _ in a }), false),
            ("both layouts", Self.bytes(mobile.merging(["camera_token": Self.vectorToken]) { a, _ in a }), false),
            ("a string index", Self.bytes(mobile.merging(["key_indices": [4, "5", 6]]) { _, b in b }), false),
        ]
        for (name, bytes, readsDirectly) in bodies {
            let (_, fields) = try EnvelopeHeader.read(bytes)
            let direct = TokenRequest(fields: fields)
            let decoded = try? JSONCoding.decode(TokenRequest.self, from: JSONValue.object(fields))
            #expect((direct != nil) == readsDirectly, "\(name)")
            if let direct { #expect(direct == decoded, "\(name)") }
        }
    }

    @Test func replayKeysSortInByteOrder() throws {
        let digests = (0..<60).map { n in
            Data((0..<32).map { i in UInt8(truncatingIfNeeded: (n &* 37) >> (i % 3) &+ i * (n % 5)) })
        }
        let keys = try digests.map { try #require(ReplayLedger.Key($0)) }
        for (a, x) in zip(digests, keys) {
            for (b, y) in zip(digests, keys) {
                #expect((x < y) == a.lexicographicallyPrecedes(b))
                #expect((x == y) == (a == b))
            }
        }
        #expect(ReplayLedger.Key(Data(count: 31)) == nil)
    }
}
