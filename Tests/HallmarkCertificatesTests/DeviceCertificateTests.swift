import Crypto
import Foundation
import HallmarkCertificates
import HallmarkTestSupport
import SwiftASN1
import Testing
import X509

/// Device certificates (DESIGN BM-CERT): issued by a manufacturer CA with a sealed handle in
/// 1.3.6.1.4.1.99999.1, read in both transports, checked for period and chain, and bundle
/// signatures in both signed forms; each refusal typed. Then both ways against PyPI
/// cryptography (`Tests/Verifiers/certificates_check.py`): what it makes, Hallmark reads as it
/// must, and what Hallmark issues, it parses and verifies with the extension present.
@Suite("Device certificates", .timeLimit(.minutes(2)))
struct DeviceCertificateTests {
    static let now = Date()
    static let year: TimeInterval = 365 * 86_400

    static func ca(_ name: String = "Test Manufacturer CA") throws -> ManufacturerCA {
        try ManufacturerCA.generate(name: name, validity: now.addingTimeInterval(-86_400)..<now.addingTimeInterval(10 * year))
    }

    static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    static func transported(_ certificate: Certificate, pem: Bool = false) throws -> String {
        pem
            ? Data(try certificate.serializeAsPEM().pemString.utf8).base64EncodedString()
            : Data(try der(certificate)).base64EncodedString()
    }

    @Test func anIssuedCertificateReadsInBothTransportsAndChecksOut() async throws {
        let ca = try Self.ca()
        let device = P256.Signing.PrivateKey()
        var boundTo: [UInt8] = []
        let issued = try ca.issue(deviceKey: device.publicKey, serial: "CAM-1", now: Self.now, validity: Self.year) { number in
            boundTo = Array(number.bytes)
            return [0xAB, 0xCD] + boundTo
        }
        for pem in [false, true] {
            let read = try DeviceCertificate(transported: try Self.transported(issued, pem: pem))
            #expect(read.encoding == (pem ? .pem : .der))
            #expect(read.handle == [0xAB, 0xCD] + boundTo)
            #expect(read.signingKey.rawRepresentation == device.publicKey.rawRepresentation)
            #expect(await read.check(trusting: [ca.certificate], at: Self.now) == nil)
        }
        // The CA's key round-trips through its raw bytes (what the authority seals).
        let back = try #require(ManufacturerCA(certificateDER: try ca.certificateDER, privateKey: ca.privateKeyRaw))
        #expect(back.certificate == ca.certificate)
        #expect(
            ManufacturerCA(certificateDER: try ca.certificateDER, privateKey: P256.Signing.PrivateKey().rawRepresentation) == nil)
        // No longer than the CA itself.
        let short = try ManufacturerCA.generate(
            name: "Short", validity: Self.now.addingTimeInterval(-60)..<Self.now.addingTimeInterval(3600))
        let capped = try short.issue(deviceKey: device.publicKey, serial: "CAM-2", now: Self.now, validity: Self.year) { _ in [1]
        }
        #expect(capped.notValidAfter <= short.certificate.notValidAfter)
    }

    @Test func refusalsAreTyped() async throws {
        let ca = try Self.ca(), other = try Self.ca("Another CA")
        let key = P256.Signing.PrivateKey()
        let good = try ca.issue(deviceKey: key.publicKey, serial: "CAM-1", now: Self.now, validity: Self.year) { _ in [1] }
        let read = try DeviceCertificate(transported: try Self.transported(good))
        #expect(
            await read.check(trusting: [ca.certificate], at: Self.now.addingTimeInterval(2 * Self.year)) == .certificateExpired)
        #expect(await read.check(trusting: [ca.certificate], at: Self.now.addingTimeInterval(-3600)) == .certificateExpired)
        #expect(await read.check(trusting: [other.certificate], at: Self.now) == .untrustedCertificate)
        #expect(await read.check(trusting: [], at: Self.now) == .untrustedCertificate)
        // The CA's own certificate, even trusted, is no camera's.
        let caItself = try DeviceCertificate(transported: try Self.transported(ca.certificate))
        #expect(await caItself.check(trusting: [ca.certificate], at: Self.now) == .untrustedCertificate)

        let bytes = try Self.der(good)
        let cases: [(String, String)] = [
            ("truncated", Data(bytes.dropLast(10)).base64EncodedString()),
            ("a byte after it", Data(bytes + [0]).base64EncodedString()),
            ("not base64", "%%%"),
            ("empty", ""),
            ("PEM with junk", Data(("junk\n" + (try good.serializeAsPEM().pemString)).utf8).base64EncodedString()),
            (
                "two PEM blocks",
                Data(((try good.serializeAsPEM().pemString) + "\n" + (try good.serializeAsPEM().pemString)).utf8)
                    .base64EncodedString()
            ),
            ("too large", String(repeating: "A", count: 9000)),
        ]
        for (what, text) in cases {
            #expect(throws: CertificateRefusal.invalidCertificate, "\(what)") { try DeviceCertificate(transported: text) }
        }
    }

    @Test func bundleSignaturesInBothFormsAndEncodings() throws {
        let ca = try Self.ca()
        let key = P256.Signing.PrivateKey()
        let issued = try ca.issue(deviceKey: key.publicKey, serial: "CAM-1", now: Self.now, validity: Self.year) { _ in [1] }
        let sent = try Self.transported(issued, pem: true)
        let read = try DeviceCertificate(transported: sent)
        let (hash, time) = (String(repeating: "ab", count: 32), UInt64(1_733_259_600))
        for form in DeviceCertificate.SignedFields.allCases {
            let message = Data(form.message(imageHash: hash, cameraCert: sent, timestamp: time, gpsHash: nil).utf8)
            let signature = try key.signature(for: message)
            for encoded in [signature.derRepresentation, signature.rawRepresentation] {
                #expect(
                    try read.signedFields(
                        signature: encoded.base64EncodedString(), imageHash: hash, cameraCert: sent, timestamp: time,
                        gpsHash: nil) == form)
            }
        }
        let pi = Data("\(hash)\(time)".utf8)
        let other = try key.signature(for: Data("\(String(repeating: "ef", count: 32))\(time)".utf8))
        let stranger = try P256.Signing.PrivateKey().signature(for: pi)
        for (what, signature) in [
            ("another hash", other.derRepresentation.base64EncodedString()),
            ("another key", stranger.derRepresentation.base64EncodedString()), ("garbage", "MAIBAQ=="), ("not base64", "%%"),
        ] {
            #expect(throws: CertificateRefusal.badSignature, "\(what)") {
                try read.signedFields(signature: signature, imageHash: hash, cameraCert: sent, timestamp: time, gpsHash: nil)
            }
        }
    }

    @Test func whatCryptographyMakesReadsAsItMust() async throws {
        let run = try await VerifierScript.run("certificates_check.py", ["make"])
        try #require(run.status == 0, "\(run.output)")
        let made = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        let ca = try Certificate(pemEncoded: try #require(made["ca_pem"] as? String))
        let hash = try #require(made["image_hash"] as? String)
        let time = UInt64(try #require(made["timestamp"] as? Int))
        for good in try #require(made["good"] as? [[String: String]]) {
            let sent = try #require(good["cert"]), what = good["what"] ?? "?"
            let read = try DeviceCertificate(transported: sent)
            #expect(await read.check(trusting: [ca], at: Date()) == nil, "\(what)")
            #expect(read.handle == [0x01, 0x02] + Array("sealed".utf8), "\(what)")
            let form = try read.signedFields(
                signature: try #require(good["signature"]), imageHash: hash, cameraCert: sent, timestamp: time,
                gpsHash: good["gps_hash"])
            #expect(form.rawValue == good["form"], "\(what)")
        }
        for refused in try #require(made["refused"] as? [[String: String]]) {
            let what = refused["what"] ?? "?", expected = try #require(refused["reason"])
            var reason: CertificateRefusal?
            do {
                reason = await (try DeviceCertificate(transported: try #require(refused["cert"]))).check(
                    trusting: [ca], at: Date())
            } catch { reason = error as? CertificateRefusal }
            #expect(reason?.rawValue == expected, "\(what): \(String(describing: reason))")
        }
        let read = try DeviceCertificate(transported: try #require(made["cert"] as? String))
        for bad in try #require(made["bad_signatures"] as? [[String: String]]) {
            #expect(throws: CertificateRefusal.badSignature, "\(bad["what"] ?? "?")") {
                try read.signedFields(
                    signature: bad["signature"] ?? "", imageHash: hash, cameraCert: made["cert"] as? String ?? "",
                    timestamp: time,
                    gpsHash: nil)
            }
        }
    }

    @Test func whatHallmarkIssuesCryptographyVerifies() async throws {
        let ca = try Self.ca()
        let handle: [UInt8] = (0..<48).map { _ in UInt8.random(in: 0...255) }
        let issued = try ca.issue(
            deviceKey: P256.Signing.PrivateKey().publicKey, serial: "CAM-PY-2", now: Date(), validity: Self.year
        ) { _ in handle }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("certs-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (caFile, deviceFile) = (dir.appendingPathComponent("ca.pem").path, dir.appendingPathComponent("device.pem").path)
        try ca.certificate.serializeAsPEM().pemString.write(toFile: caFile, atomically: true, encoding: .utf8)
        try issued.serializeAsPEM().pemString.write(toFile: deviceFile, atomically: true, encoding: .utf8)
        let hex = handle.map { String(format: "%02x", $0) }.joined()
        let run = try await VerifierScript.run(
            "certificates_check.py", ["inspect", "--ca", caFile, "--device", deviceFile, "--handle", hex, "--serial", "CAM-PY-2"])
        #expect(run.status == 0, "\(run.output)")
        // And the check can fail: another handle is refused.
        let wrong = try await VerifierScript.run(
            "certificates_check.py",
            ["inspect", "--ca", caFile, "--device", deviceFile, "--handle", "00", "--serial", "CAM-PY-2"])
        #expect(wrong.status == 1 && wrong.output.contains("not the handle"), "\(wrong.output)")
    }
}
