import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkSmileID
import Testing

/// Hostile and large zip uploads through a running signer: each hostile one is answered
/// `malformed` at once, the lane it shared stays open, nothing in the log names its contents,
/// and many large legal uploads at once stay within the zip memory budget (measured on the
/// process's resident memory) and are all accepted.
@Suite("Signer: zip uploads", .serialized, .timeLimit(.minutes(8)))
struct SignerZipTests {
    static let headers = ["SmileID-Partner-ID": "p-zip", "Content-Type": "application/zip"]

    /// An upload of `files` with a `security_info.json` signed under `secret` (SIGN-FILES).
    static func signedUpload(
        _ files: [ZipForge.Entry], plain: [(String, Data)], secret: String,
        timestamp: String = Timestamp.now().text
    ) throws -> Data {
        let mac = try SmileIDFileSignature.sign(
            secret: secret, timestamp: timestamp,
            files: plain.map { .init(name: $0.0, contents: $0.1) })
        return ZipCheck.upload(files, info: try SmileIDSecurityInfo(mac: mac, timestamp: timestamp).jsonData()).build()
    }

    static func validUpload(secret: String, marker: String) throws -> Data {
        let files = [("info.json", Data(#"{"job":"\#(marker)"}"#.utf8)), ("si_selfie_1.jpg", Data("JPEG".utf8))]
        return try signedUpload(files.map { ZipForge.Entry($0.0, $0.1) }, plain: files, secret: secret)
    }

    /// Hostile archives, each with a `security_info.json` that would verify, and the verdict due.
    static func hostile() -> [(label: String, body: Data, reason: String)] {
        let marker = Data("content-marker-7f3a".utf8)
        var honestBomb = ZipForge.Entry("si_selfie_1.jpg")
        (honestBomb.data, honestBomb.declaredSize, honestBomb.crc) = (Deflate.zeros(mebibytes: 512), 512 << 20, 0)
        var lyingBomb = honestBomb
        lyingBomb.declaredSize = 1024
        var zip64 = ZipForge.Entry("info.json", marker)
        (zip64.zip64, zip64.declaredSize) = (true, 1 << 50)
        var shrinking = ZipForge.Entry("info.json", marker)
        shrinking.declaredSize = 5_000
        var encrypted = ZipForge.Entry("info.json", marker)
        encrypted.flags |= 1
        var disagree = ZipForge.Entry("info.json", marker)
        disagree.localDeclaredSize = 3
        var bzip2 = ZipForge.Entry("info.json", marker, method: 12)
        bzip2.data = marker
        let valid = ZipCheck.upload([ZipForge.Entry("info.json", marker)]).build()
        return [
            ("bomb declared", ZipCheck.upload([honestBomb]).build(), "malformed"),
            ("bomb lying", ZipCheck.upload([lyingBomb]).build(), "malformed"),
            ("zip64 huge", ZipCheck.upload([zip64]).build(), "malformed"),
            ("declared big, inflates small", ZipCheck.upload([shrinking]).build(), "malformed"),
            ("central and local disagree", ZipCheck.upload([disagree]).build(), "malformed"),
            ("entries", ZipCheck.upload((0..<300).map { ZipForge.Entry("f\($0).txt") }).build(), "malformed"),
            ("encrypted", ZipCheck.upload([encrypted]).build(), "malformed"),
            ("bzip2", ZipCheck.upload([bzip2]).build(), "malformed"),
            ("truncated", valid.prefix(valid.count - 30), "malformed"),
            (
                "duplicate",
                ZipCheck.upload([
                    ZipForge.Entry("a/secret-name-marker.txt"),
                    ZipForge.Entry("b/secret-name-marker.txt"),
                ]).build(), "malformed"
            ),
            ("info twice", ZipCheck.upload([ZipForge.Entry("x/security_info.json", ZipCheck.info)]).build(), "malformed"),
            ("traversal", ZipCheck.upload([ZipForge.Entry("../secret-name-marker.txt", marker)]).build(), "malformed"),
            ("no security info", ZipForge([ZipForge.Entry("info.json", marker)]).build(), "missing_header"),
        ]
    }

    @Test func hostileZipsAreMalformedAtOnceAndTheLaneKeepsFlowing() async throws {
        let h = try await SignerHarness(secrets: ["v1": "zip-secret"], signing: "v1")
        let signer = try await h.startSigner("zips")
        let hostile = Self.hostile()
        let requests = hostile.map { Fixtures.verify(Self.headers, body: $0.body) }
        // Then valid uploads: one in the same lane (key) as the hostile ones, one in another.
        let after = Fixtures.verify(Self.headers, body: try Self.validUpload(secret: "zip-secret", marker: "after"))
        let elsewhere = ["SmileID-Partner-ID": "p-other", "Content-Type": "application/zip"]
        let other = Fixtures.verify(elsewhere, body: try Self.validUpload(secret: "zip-secret", marker: "other"))
        let start = ContinuousClock.now
        for r in requests + [after] { try await h.send(h.verifyInput, key: "p-zip", message: r) }
        try await h.send(h.verifyInput, key: "p-other", message: other)
        let results = try await h.results(h.verifyOutput, for: (requests + [after, other]).map(\.id), timeout: .seconds(120))
        let took = ContinuousClock.now - start
        for (request, expected) in zip(requests, hostile) {
            let verdicts = results[request.id] ?? []
            #expect(verdicts.count == 1, "\(expected.label)")
            #expect(verdicts.first?["reason"] as? String == expected.reason, "\(expected.label)")
        }
        #expect(results[after.id]?.first?["verdict"] as? String == "accepted")
        #expect(results[other.id]?.first?["verdict"] as? String == "accepted")
        // Everything, consumer start-up included, well inside what inflating the bombs would take.
        #expect(took < .seconds(60), "\(took)")
        #expect(signer.process.isRunning)
        for forbidden in ["secret-name-marker", "content-marker-7f3a"] { #expect(!signer.rawLog.contains(forbidden)) }
        signer.signal(SIGTERM)
        #expect(await signer.waitForExit(timeout: .seconds(30)) == 0)
        await h.close()
    }

    /// 12 legal uploads of 30 MiB each (≈30 KB compressed) at once, on 12 keys, through a
    /// 64 MiB budget: all accepted, the budget's peak stays within it, and the signer's peak
    /// resident memory grows by far less than the 360 MiB they would hold together.
    @Test func manyLargeLegalZipsStayWithinTheBudget() async throws {
        let h = try await SignerHarness(secrets: ["v1": "big-secret"], signing: "v1")
        let signer = try await h.startSigner(
            "budget",
            [
                "HALLMARK_SIGNER_MAX_ZIP_BYTES": "\(32 << 20)", "HALLMARK_SIGNER_ZIP_MEMORY_BYTES": "\(64 << 20)",
            ])
        let warmUp = Fixtures.verify(Self.headers, body: try Self.validUpload(secret: "big-secret", marker: "warm"))
        try await h.send(h.verifyInput, key: "p-zip", message: warmUp)
        #expect(try await h.results(h.verifyOutput, for: [warmUp.id])[warmUp.id]?.first?["verdict"] as? String == "accepted")

        let size = 30 << 20
        var data = ZipForge.Entry("data.bin")
        (data.data, data.declaredSize, data.crc) = (Deflate.zeros(mebibytes: 30), UInt64(size), Deflate.crc(Data(count: size)))
        let zeros = Data(count: size)
        var requests: [Message<VerifyRequest>] = []
        for i in 0..<12 {
            let index = Data(String(format: "%03d", i).utf8)
            let body = try Self.signedUpload(
                [data, ZipForge.Entry("n.txt", index)],
                plain: [("data.bin", zeros), ("n.txt", index)], secret: "big-secret")
            requests.append(Fixtures.verify(["SmileID-Partner-ID": "p\(i)"], body: body))
        }
        let pid = signer.process.processIdentifier
        try Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/\(pid)/clear_refs"))  // peak := current
        let baseline = try Self.memory(pid, "VmHWM")
        for (i, r) in requests.enumerated() { try await h.send(h.verifyInput, key: "p\(i)", message: r) }
        let results = try await h.results(h.verifyOutput, for: requests.map(\.id), timeout: .seconds(180))
        #expect(requests.allSatisfy { results[$0.id]?.first?["verdict"] as? String == "accepted" })
        let growth = try Self.memory(pid, "VmHWM") - baseline
        #expect(growth < (64 + 48) << 20, "peak resident memory grew by \(growth >> 20) MiB")

        // The budget's own account, from the metrics topic.
        var peak = 0.0
        var waits = 0.0
        _ = try await h.read(h.metricsTopic, timeout: .seconds(20)) { snapshots in
            guard let s = snapshots.last, s["instance"] as? String == "budget" else { return false }
            let values = (s["gauges"] as? [[String: Any]] ?? []) + (s["counters"] as? [[String: Any]] ?? [])
            func value(_ name: String) -> Double? { values.first { $0["name"] as? String == name }?["value"] as? Double }
            peak = value("hallmark_smileid_zip_memory_peak_bytes") ?? 0
            waits = value("hallmark_smileid_zip_memory_waits_total") ?? 0
            return peak >= Double(size) && waits > 0
        }
        #expect(peak >= Double(size) && peak <= Double(64 << 20), "\(peak)")
        #expect(waits > 0)
        signer.signal(SIGTERM)
        #expect(await signer.waitForExit(timeout: .seconds(30)) == 0)
        await h.close()
    }

    /// A `/proc/<pid>/status` figure in bytes.
    static func memory(_ pid: Int32, _ field: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix(field + ":") })
        return try #require(Int(line.split(separator: " ").dropFirst().first { Int($0) != nil } ?? "")) * 1024
    }
}
