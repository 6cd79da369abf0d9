import HallmarkSmileID
import HallmarkZip
import Foundation
import HallmarkCrypto
import Logging
import SignerCore
import Testing

/// The verification rules in-process, with the real worker pool (no broker): every rejection
/// reason, the canonical retry, rotation order and SIGN-FILES zips.
@Suite("Request verifier", .timeLimit(.minutes(3)))
struct RequestVerifierTests {
    let pool: PBKDF2WorkerPool
    let zips: ZipUploadReader
    let verifier: RequestVerifier
    let signer: RequestSigner
    let secrets: SecretSet
    let vectorNow = Date(timeIntervalSince1970: 1_735_689_600)  // 2025-01-01T00:00:00Z

    init() throws {
        pool = PBKDF2WorkerPool(workers: 2, batchSize: 4, service: "signer", logger: Logger(label: "test"))
        pool.startDetached()
        let deriver = KeyDeriver(pool: pool, cache: DerivedKeyCache(capacity: 64, ttl: 60))
        var configuration = SignerConfiguration()
        configuration.maxZipBytes = 1 << 20
        zips = configuration.zipReader(service: "test", logger: Logger(label: "test"))
        verifier = RequestVerifier(deriver: deriver, window: 300, zips: zips)
        signer = RequestSigner(deriver: deriver)
        secrets = try SecretSet(
            versions: [
                .init(version: "v1", secret: "other-secret"),
                .init(version: "v2", secret: "test-secret"),
            ], signingVersion: "v2")
    }

    func outcome(_ headers: [String: String], _ body: Data, now: Date? = nil) async throws -> RequestVerifier.Outcome {
        try await verifier.verify(headers: headers, body: body, secrets: secrets, now: now ?? vectorNow)
    }

    func reason(_ o: RequestVerifier.Outcome) -> String {
        switch o {
        case .valid(let version, _, _): return "accepted:\(version)"
        case .rejected(let r): return r.rawValue
        }
    }

    @Test func vectorsAAndBAreAcceptedWithTheMatchingVersion() async throws {
        defer { pool.stop(); zips.pool.stop() }
        var a = Fixtures.vectorHeaders
        a["SmileID-Request-Mac"] = Fixtures.vectorAMAC
        #expect(reason(try await outcome(a, Fixtures.vectorABody)) == "accepted:v2")
        var b = Fixtures.vectorHeaders
        b["smileid-request-mac"] = Fixtures.vectorBMAC
        #expect(reason(try await outcome(b, Data())) == "accepted:v2")
        // Signing reproduces vector A.
        let signed = try await signer.sign(
            headers: Fixtures.vectorHeaders, body: Fixtures.vectorABody, timestamp: nil,
            secrets: secrets, now: Date())
        #expect(signed.headers["SmileID-Request-Mac"] == Fixtures.vectorAMAC)
        #expect(signed.version == "v2")
    }

    @Test func everyRejectionReason() async throws {
        defer { pool.stop(); zips.pool.stop() }
        var a = Fixtures.vectorHeaders
        a["SmileID-Request-Mac"] = Fixtures.vectorAMAC
        var tamperedHeader = a
        tamperedHeader["SmileID-Source-SDK"] = "android"
        var removedHeader = a
        removedHeader["SmileID-Source-SDK-Version"] = nil
        var noMAC = a
        noMAC["SmileID-Request-Mac"] = nil
        var noPartner = a
        noPartner["SmileID-Partner-ID"] = nil
        var badMAC = a
        badMAC["SmileID-Request-Mac"] = "not base64!"
        var collide = a
        collide["smileid-partner-id"] = "003"
        #expect(reason(try await outcome(a, Data(#"{"job_id":"job-2","user_id":"user-1"}"#.utf8))) == "bad_mac")
        #expect(reason(try await outcome(tamperedHeader, Fixtures.vectorABody)) == "bad_mac")
        #expect(reason(try await outcome(removedHeader, Fixtures.vectorABody)) == "bad_mac")
        #expect(reason(try await outcome(noMAC, Fixtures.vectorABody)) == "missing_header")
        #expect(reason(try await outcome(noPartner, Fixtures.vectorABody)) == "missing_header")
        #expect(reason(try await outcome(badMAC, Fixtures.vectorABody)) == "malformed")
        #expect(reason(try await outcome(collide, Fixtures.vectorABody)) == "malformed")
        #expect(reason(try await outcome(a, Fixtures.vectorABody, now: vectorNow.addingTimeInterval(301))) == "stale_timestamp")
        #expect(reason(try await outcome(a, Fixtures.vectorABody, now: vectorNow.addingTimeInterval(-301))) == "future_timestamp")
        #expect(reason(try await outcome(a, Fixtures.vectorABody, now: vectorNow.addingTimeInterval(299))) == "accepted:v2")
    }

    @Test func iOSBodyReencodedWithUnsortedKeysAndEscapedSlashes() async throws {
        defer { pool.stop(); zips.pool.stop() }
        let canonical = Data(#"{"a":"x/y","b":1}"#.utf8)
        let sent = Data(#"{"b":1,"a":"x\/y"}"#.utf8)
        let headers = try Fixtures.signedHeaders(secret: "test-secret", timestamp: Fixtures.vectorTimestamp, body: canonical)
        #expect(reason(try await outcome(headers, sent)) == "accepted:v2")
        #expect(reason(try await outcome(headers, Data(#"{"b":2,"a":"x\/y"}"#.utf8))) == "bad_mac")
    }

    @Test func vectorDZipInEitherKeyOrder() async throws {
        defer { pool.stop(); zips.pool.stop() }
        let headers = ["SmileID-Partner-ID": "002", "Content-Type": "application/zip"]
        for info in [
            #"{"mac":"\#(Fixtures.vectorDMAC)","timestamp":"\#(Fixtures.vectorTimestamp)"}"#,
            #"{"timestamp":"\#(Fixtures.vectorTimestamp)","mac":"\#(Fixtures.vectorDMAC)"}"#,
        ] {
            let zip = try Fixtures.vectorDZip(infoJSON: info)
            #expect(reason(try await outcome(headers, zip)) == "accepted:v2")
        }
        let wrong = try Fixtures.vectorDZip(
            infoJSON: #"{"mac":"\#(Fixtures.vectorAMAC)","timestamp":"\#(Fixtures.vectorTimestamp)"}"#)
        #expect(reason(try await outcome(headers, wrong)) == "bad_mac")
        let broken = try Fixtures.vectorDZip(infoJSON: #"{"mac":1}"#)
        #expect(reason(try await outcome(headers, broken)) == "malformed")
        // A body that starts like a zip is read as one: truncated, it is malformed.
        let zip = try Fixtures.vectorDZip(infoJSON: "{}")
        #expect(reason(try await outcome(headers, zip.prefix(40))) == "malformed")
    }

    /// Every hostile archive is `malformed` at once, before any PBKDF2, whatever its headers
    /// claim; the verifier then still accepts vector D.
    @Test func hostileZipsAreMalformed() async throws {
        defer { pool.stop(); zips.pool.stop() }
        let headers = ["SmileID-Partner-ID": "002", "Content-Type": "application/zip"]
        var bomb = ZipForge.Entry("si_selfie_1.jpg")
        (bomb.data, bomb.declaredSize, bomb.crc) = (Deflate.zeros(mebibytes: 256), 1024, 0)
        var huge = bomb
        huge.declaredSize = 1 << 40
        huge.zip64 = true
        var encrypted = ZipForge.Entry("info.json", Data("x".utf8))
        encrypted.flags |= 1
        var lying = ZipForge.Entry("info.json", Data("abc".utf8))
        lying.localDeclaredSize = 2
        let hostile: [(String, Data)] = [
            ("bomb", ZipCheck.upload([bomb]).build()), ("zip64", ZipCheck.upload([huge]).build()),
            ("encrypted", ZipCheck.upload([encrypted]).build()), ("lying", ZipCheck.upload([lying]).build()),
            ("entries", ZipCheck.upload((0..<300).map { ZipForge.Entry("f\($0)") }).build()),
            ("info twice", ZipCheck.upload([ZipForge.Entry("x/security_info.json", ZipCheck.info)]).build()),
            ("bzip2", ZipCheck.upload([ZipForge.Entry("info.json", Data("x".utf8), method: 12)]).build()),
        ]
        for (label, body) in hostile {
            let start = ContinuousClock.now
            #expect(reason(try await outcome(headers, body)) == "malformed", "\(label)")
            #expect(ContinuousClock.now - start < .seconds(5), "\(label)")
        }
        let info = #"{"mac":"\#(Fixtures.vectorDMAC)","timestamp":"\#(Fixtures.vectorTimestamp)"}"#
        #expect(reason(try await outcome(headers, try Fixtures.vectorDZip(infoJSON: info))) == "accepted:v2")
        #expect(zips.budget.used == 0)
    }

    /// A well-formed zip without `security_info.json` is a plain body: SIGN-1 over its bytes.
    @Test func zipWithoutSecurityInfoIsAPlainBody() async throws {
        defer { pool.stop(); zips.pool.stop() }
        let body = ZipForge([ZipForge.Entry("report.txt", Data("plain".utf8))]).build()
        let headers = try Fixtures.signedHeaders(secret: "test-secret", timestamp: Fixtures.vectorTimestamp, body: body)
        #expect(reason(try await outcome(headers, body)) == "accepted:v2")
        #expect(reason(try await outcome(["SmileID-Partner-ID": "002"], body)) == "missing_header")
    }
}
