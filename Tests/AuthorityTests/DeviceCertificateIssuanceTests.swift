import AuthorityCore
import Crypto
import Foundation
import HallmarkCertificates
import HallmarkClient
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkPostgres
import HallmarkTestSupport
import Testing
import X509

/// Certificates at provisioning (DESIGN BM-CERT), through the running authority: a camera that
/// sends a P-256 signing key gets an X.509 certificate from the authority's manufacturer CA,
/// sealed to it with its table keys. The certificate chains to that CA, names the serial, and
/// carries a handle only the authority opens to the serial; PyPI cryptography reads it the same
/// way. The private key never leaves the camera, and nothing of the certificate is published in
/// clear.
@Suite("Device certificate issuance", .serialized, .timeLimit(.minutes(3)))
struct DeviceCertificateIssuanceTests {
    @Test func aCameraWithASigningKeyGetsItsCertificate() async throws {
        let h = try await AuthorityHarness()
        let service = try await h.start("certs")
        defer { service.signal(SIGKILL) }
        let provisioner = CameraProvisioner(producer: h.producer, watcher: h.watcher, topic: h.configuration.provisionInput)

        // Two cameras at once, each asking for a certificate: one CA is made for both.
        let serials = ["CAM-\(h.id)-c1", "CAM-\(h.id)-c2"]
        async let first = provisioner.provision(serial: serials[0], certificate: true)
        async let second = provisioner.provision(serial: serials[1], certificate: true)
        var files: [ProvisioningFile] = []
        for outcome in try await [first, second] {
            guard case .provisioned(let file) = outcome else { throw HarnessError("rejected: \(outcome)") }
            files.append(file)
        }
        let cas = try await h.pool.query(
            "SELECT count(*)::bigint FROM \(unescaped: h.configuration.schema).certificate_authorities WHERE issuing"
        ).decode(Int64.self)
        #expect(cas == [1])

        let issuer = DeviceCertificateIssuer(schema: h.configuration.schema, secrets: try h.secrets(), validity: .seconds(86_400))
        for (serial, file) in zip(serials, files) {
            let pem = try #require(file.deviceCertificate), chain = try #require(file.certificateChain)
            let ca = try Certificate(pemEncoded: chain)
            let read = try DeviceCertificate(transported: Data(pem.utf8).base64EncodedString())
            #expect(await read.check(trusting: [ca], at: Date()) == nil)
            #expect(read.certificate.notValidAfter.timeIntervalSinceNow > 364 * 86_400)
            // The handle opens, at the authority alone, to the camera's serial.
            #expect(issuer.device(of: read) == serial)
            // The signing key in the file is the certificate's: it signs a bundle the Pi's way.
            let key = try P256.Signing.PrivateKey(pemRepresentation: try #require(file.devicePrivateKey))
            #expect(key.publicKey.rawRepresentation == read.signingKey.rawRepresentation)
            let hash = String(repeating: "ab", count: 32)
            let signature = try key.signature(for: Data("\(hash)1733259600".utf8)).derRepresentation.base64EncodedString()
            #expect(
                try read.signedFields(
                    signature: signature, imageHash: hash, cameraCert: pem, timestamp: 1_733_259_600, gpsHash: nil)
                    == .imageHashTimestamp)
            // PyPI cryptography: issued by the CA, valid, not a CA, the handle in 1.3.6.1.4.1.99999.1.
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("issued-\(UUID())")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            try chain.write(to: dir.appendingPathComponent("ca.pem"), atomically: true, encoding: .utf8)
            try pem.write(to: dir.appendingPathComponent("device.pem"), atomically: true, encoding: .utf8)
            let handle = try #require(read.handle).map { String(format: "%02x", $0) }.joined()
            let check = try await VerifierScript.run(
                "certificates_check.py",
                [
                    "inspect", "--ca", dir.appendingPathComponent("ca.pem").path, "--device",
                    dir.appendingPathComponent("device.pem").path, "--handle", handle, "--serial", serial,
                ])
            #expect(check.status == 0, "\(check.output)")
        }
        // A handle is bound to its certificate's serial: moved into another certificate, it opens to nothing.
        let (one, two) = try files.map {
            try DeviceCertificate(transported: Data(try #require($0.deviceCertificate).utf8).base64EncodedString())
        }
        .pair()
        #expect(
            (try? AtRestSeal.open(
                Data(try #require(one.handle)), context: DeviceCertificateIssuer.handleContext(certificateSerial: two.serialHex),
                keyring: try h.secrets().keyring)) == nil)

        // Nothing of a certificate is on the result topic in clear: it is sealed to the camera.
        let published = h.watcher.messages(on: h.configuration.provisionOutput).map { String(decoding: $0, as: UTF8.self) }
        for file in files {
            let body = try #require(file.deviceCertificate).split(separator: "\n").dropFirst().first.map(String.init) ?? "?"
            #expect(!published.contains { $0.contains(body) })
        }

        // Without a signing key, no certificate; a key that is not P-256 is refused malformed.
        let plain = try await h.provisioned("CAM-\(h.id)-plain")
        #expect(plain.deviceCertificate == nil && plain.devicePrivateKey == nil)
        for (what, key) in [
            ("a P-384 key", Base64.encode(P384.Signing.PrivateKey().publicKey.derRepresentation)),
            ("an X25519 key", Base64.encode(try X25519.generate().publicKey)),
        ] {
            let result = try await h.provisionRaw(
                Message(
                    ProvisionRequest(
                        deviceSerial: "CAM-\(h.id)-\(what.count)",
                        devicePublicKey: Base64.encode(try X25519.generate().publicKey),
                        nucHash: nil, deviceFamily: nil, deviceSigningKey: key)))
            #expect(result.body.status == .rejected && result.body.reason == .malformed, "\(what)")
        }
    }
}

extension Array {
    /// The two elements of a two-element array.
    fileprivate func pair() throws -> (Element, Element) {
        guard count == 2 else { throw HarnessError("expected two, got \(count)") }
        return (self[0], self[1])
    }
}
