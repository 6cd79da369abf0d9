import Foundation
import HallmarkCore
import Testing
@testable import HallmarkCrypto

@Suite(.timeLimit(.minutes(2))) struct SmileIDTests {
    @Test func headerRules() throws {
        let json = try SmileIDSignature.headersJSON([
            "SmileID-Partner-ID": "002", "Content-Type": "x", "SmileID-Request-Mac": "m",
            "smileid-device-nonce": "n", "X-Other": "y", "SMILEID-PATH": "/v1/a/b", "SmileID-Name": "Zoë",
        ])
        #expect(
            String(decoding: json, as: UTF8.self)
                == #"{"smileid-name":"Zoë","smileid-partner-id":"002","smileid-path":"/v1/a/b"}"#)
        #expect(try SmileIDSignature.headersJSON([:]) == Data("{}".utf8))
        #expect(try SmileIDSignature.headersJSON(["Accept": "x"]) == Data("{}".utf8))
        expectCode(.duplicateHeader) {
            _ = try SmileIDSignature.headersJSON(["SmileID-Partner-ID": "1", "smileid-partner-id": "2"])
        }
        // Header names are RFC 9110 tokens; anything else cannot be signed (the signer answers malformed).
        for bad in ["", "Smile ID", "smileid-a:b", "smileid-é", "smileid-(x)", "smileid-a\u{0}", "smileid-a/b", "smileid-\"q\""] {
            expectCode(.invalidHeaderName) { _ = try SmileIDSignature.headersJSON([bad: "v"]) }
        }
        #expect(try SmileIDSignature.headersJSON(["SmileID-A!#$%&'*+-.^_`|~9": "v"]).count > 2)
        // Absent headers contribute nothing; an empty set contributes "{}".
        #expect(try SmileIDSignature.signingData(headers: nil, payload: Data("p".utf8)) == Data("p".utf8))
        #expect(try SmileIDSignature.signingData(headers: [:], payload: Data("p".utf8)) == Data("{}p".utf8))
    }

    /// DESIGN SIGN-1: the key order is Foundation's `.sortedKeys` order, digit runs compared by
    /// value, not byte order (which would put `smileid-x10` first), so a MAC made by the iOS SDK
    /// over these headers verifies here.
    @Test func headerKeysSortDigitRunsByValue() throws {
        let json = try SmileIDSignature.headersJSON([
            "SmileID-X10": "a", "smileid-x9": "b", "SmileID-X1": "c",
            "smileid-x100": "d", "smileid-y": "e",
        ])
        #expect(
            String(decoding: json, as: UTF8.self)
                == #"{"smileid-x1":"c","smileid-x9":"b","smileid-x10":"a","smileid-x100":"d","smileid-y":"e"}"#)
        // The MAC is over exactly those bytes (an independent HMAC over the expected string).
        let timestamp = "2025-01-01T00:00:00.000Z"
        let headers = ["SmileID-X10": "a", "smileid-x9": "b"]
        let expectedData = Data(#"{"smileid-x9":"b","smileid-x10":"a"}body"#.utf8)
        let key = try SmileIDSignature.key(secret: "s", timestamp: timestamp, dataCount: expectedData.count)
        let expected = Base64.encode(HMACSHA256.mac(key: key, data: expectedData))
        #expect(
            try SmileIDSignature.sign(
                secret: "s", timestamp: timestamp, headers: headers,
                payload: Data("body".utf8)) == expected)
    }

    @Test func canonicalBodyMatchesFoundation() {
        let body = Data(#"{ "z": "a/b", "a": [1, 2.5, true, null], "m": {"y": 1, "b": "é"} }"#.utf8)
        #expect(
            SmileIDSignature.canonicalBody(body)
                == Data(#"{"a":[1,2.5,true,null],"m":{"b":"é","y":1},"z":"a/b"}"#.utf8))
        // Pins Foundation's key order (numeric, case-insensitive), which is what the SDK signs.
        let order = SmileIDSignature.canonicalBody(Data(#"{"a10":1,"B":3,"a9":2,"a":4}"#.utf8)).map {
            String(decoding: $0, as: UTF8.self)
        }
        #expect(order == #"{"a":4,"a9":2,"a10":1,"B":3}"#)
        #expect(SmileIDSignature.canonicalBody(Data("not json".utf8)) == nil)
        #expect(SmileIDSignature.canonicalBody(Data(#"{"a":"#.utf8)) == nil)
    }

    /// One test with a handful of 200k derivations: versions, canonical retry, tampering.
    @Test func verifySecretsCanonicalRetryAndTamper() throws {
        let canonical = Data(#"{"job_id":"job-1","user_id":"user-1"}"#.utf8)
        let mac = try SmileIDSignature.sign(
            secret: "test-secret", timestamp: vectorTimestamp,
            headers: vectorHeaders, payload: canonical)
        let ok = try SmileIDSignature.verify(
            mac: mac, secrets: ["old-secret", "test-secret"], timestamp: vectorTimestamp,
            headers: vectorHeaders, payload: canonical)
        #expect(ok == SmileIDSignature.Verification(secretIndex: 1, usedCanonicalBody: false))

        // The SDK signed the canonical encoding but sent it re-encoded.
        let reencoded = Data(#"{"user_id": "user-1", "job_id": "job-1"}"#.utf8)
        let retried = try SmileIDSignature.verify(
            mac: mac, secrets: ["test-secret"], timestamp: vectorTimestamp,
            headers: vectorHeaders, payload: reencoded)
        #expect(retried == SmileIDSignature.Verification(secretIndex: 0, usedCanonicalBody: true))

        // Any flipped MAC byte fails (checked cheaply: the key is derived once per attempt anyway).
        let macBytes = try Base64.decode(mac)
        let key = try SmileIDSignature.key(
            secret: "test-secret", timestamp: vectorTimestamp,
            dataCount: SmileIDSignature.signingData(headers: vectorHeaders, payload: canonical).count)
        let data = try SmileIDSignature.signingData(headers: vectorHeaders, payload: canonical)
        for i in 0..<macBytes.count {
            #expect(!HMACSHA256.verify(mac: flipped(macBytes, at: i), key: key, data: data))
        }
        let tampered = Base64.encode(flipped(macBytes, at: 5))
        #expect(
            try SmileIDSignature.verify(
                mac: tampered, secrets: ["test-secret"], timestamp: vectorTimestamp,
                headers: vectorHeaders, payload: canonical) == nil)
        #expect(try SmileIDSignature.verify(mac: mac, secrets: [], timestamp: vectorTimestamp) == nil)
    }

    @Test func malformedMAC() {
        for bad in ["", "abc", "!!!!", String(repeating: "A", count: 42) + "==", "AAAA"] {
            #expect(throws: HallmarkCryptoError.self) {
                _ = try SmileIDSignature.verify(mac: bad, secrets: ["s"], timestamp: vectorTimestamp)
            }
        }
    }

    @Test func securityInfoAnyKeyOrder() throws {
        let a = try SmileIDSecurityInfo.parse(Data(#"{"mac":"m","timestamp":"t"}"#.utf8))
        let b = try SmileIDSecurityInfo.parse(Data(#"{"timestamp":"t","extra":1,"mac":"m"}"#.utf8))
        #expect(a == b && a.mac == "m" && a.timestamp == "t")
        #expect(try SmileIDSecurityInfo.parse(a.jsonData()) == a)
        for bad in [#"{"mac":"m"}"#, #"{"mac":1,"timestamp":"t"}"#, #"{"mac":"m","#, "[]", ""] {
            expectCode(.malformedJSON) { _ = try SmileIDSecurityInfo.parse(Data(bad.utf8)) }
        }
    }

    @Test func fileOrderingIsByteOrder() {
        let files = [
            SmileIDFileSignature.File(name: "b", contents: Data("2".utf8)),
            SmileIDFileSignature.File(name: "B", contents: Data("1".utf8)),
            SmileIDFileSignature.File(name: "a", contents: Data("3".utf8)),
        ]
        #expect(SmileIDFileSignature.signingData(files: files) == Data("132".utf8))
    }

    @Test func timestampWindow() {
        let now = Timestamp.parse(vectorTimestamp)!
        #expect(SmileIDTimestamp.check("2025-01-01T00:04:59.000Z", now: now) == .ok)
        #expect(SmileIDTimestamp.check("2025-01-01T00:05:01Z", now: now) == .future)
        #expect(SmileIDTimestamp.check("2024-12-31T23:54:59.999Z", now: now) == .stale)
        #expect(SmileIDTimestamp.check("yesterday", now: now) == .malformed)
        // Hallmark's one timestamp form is UTC with a final Z (DESIGN §2): offsets are malformed.
        #expect(SmileIDTimestamp.check("2025-01-01T02:00:00+02:00", now: now) == .malformed)
        #expect(abs((Timestamp.parse("2025-01-01T00:00:00.123Z")?.timeIntervalSince(now) ?? 0) - 0.123) < 0.001)
    }
}

@Suite(.timeLimit(.minutes(2))) struct SmileIDBatchTests {
    @Test func batchesMatchSingleCalls() throws {
        let body = Data(#"{"job_id":"job-1","user_id":"user-1"}"#.utf8)
        let requests = [
            SmileIDSignature.Request(secret: "test-secret", timestamp: vectorTimestamp, headers: vectorHeaders, payload: body),
            SmileIDSignature.Request(secret: "test-secret", timestamp: vectorTimestamp, headers: vectorHeaders),
            SmileIDSignature.Request(secret: "test-secret", timestamp: vectorTimestamp, headers: ["A": "1", "a": "2"]),
            SmileIDSignature.Request(secret: "test-secret", timestamp: vectorTimestamp, payload: Data("test payload".utf8)),
        ]
        let macs = SmileIDSignature.signBatch(requests)
        #expect(try macs[0].get() == "NfIMuN27o4N21wG5w1/zpFWxD6IKLAKVcDKdj+Nc+3I=")
        #expect(try macs[1].get() == "bFCfQxhjFvDLCq+opLmD9TfK6IQR3Kwwwy2qWJYMldI=")
        #expect(throws: HallmarkCryptoError.self) { try macs[2].get() }
        #expect(try macs[3].get() == "d0z1cqkMp2cMNM9risySEwXvNJOAoG+dHRv+tBaokKk=")

        var reencoded = requests[0]
        reencoded.payload = Data(#"{"user_id": "user-1", "job_id": "job-1"}"#.utf8)
        let checks: [(mac: String, request: SmileIDSignature.Request)] = [
            (try macs[0].get(), requests[0]), (try macs[0].get(), reencoded), (try macs[1].get(), requests[3]),
            ("AAAA", requests[1]), (try macs[3].get(), requests[3]),
        ]
        let verdicts = SmileIDSignature.verifyBatch(checks, secrets: ["old", "test-secret"])
        #expect(try verdicts[0].get() == SmileIDSignature.Verification(secretIndex: 1, usedCanonicalBody: false))
        #expect(try verdicts[1].get() == SmileIDSignature.Verification(secretIndex: 1, usedCanonicalBody: true))
        #expect(try verdicts[2].get() == nil)
        #expect(throws: HallmarkCryptoError.self) { try verdicts[3].get() }
        #expect(try verdicts[4].get() == SmileIDSignature.Verification(secretIndex: 1, usedCanonicalBody: false))
    }
}
