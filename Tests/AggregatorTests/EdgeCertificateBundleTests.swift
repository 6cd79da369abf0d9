import AggregatorCore
import AuthorityCore
import Foundation
import HallmarkCertificates
import HallmarkClient
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkPostgres
import HallmarkSubprocess
import HallmarkTestSupport
import Testing

/// Certificate bundles (DESIGN BM-CERT), end to end: `POST /api/v1/submit-cert` as the reference
/// Raspberry Pi and iOS app send them, and the same bundles straight on Kafka. Certificates the
/// authority issued are accepted in both signed forms; the aggregator's own checks refuse, with
/// their typed reasons, what PyPI cryptography made to be refused; the authority, asked only
/// about the sealed handle, answers `unknown_device` and `blacklisted`. The same certificate,
/// hash and time again is a `duplicate` the authority is not asked about. Nothing of a
/// certificate is kept in PostgreSQL, logged, or published beyond the submissions topic.
@Suite("Certificate bundles", .serialized, .timeLimit(.minutes(6)))
struct EdgeCertificateBundleTests {
    /// What `certificates_check.py make` writes.
    struct Made: Decodable {
        struct Good: Decodable {
            let what: String, cert: String, signature: String, form: String
            let gps_hash: String?
        }
        struct Refused: Decodable { let what: String, cert: String, reason: String }
        struct BadSignature: Decodable { let what: String, signature: String }
        let ca_pem: String, image_hash: String, timestamp: UInt64, cert: String
        let good: [Good], refused: [Refused], bad_signatures: [BadSignature]
    }

    @Test func certificateBundlesOverHTTPAndKafka() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let run = try await VerifierScript.run("certificates_check.py", ["make"])
        #expect(run.status == 0, "\(run.output)")
        let made = try JSONDecoder().decode(Made.self, from: Data(run.output.utf8))

        // The CAs the aggregator trusts: the authority's, as `hallmark authority ca export`
        // writes them, and the independent manufacturer's PyPI cryptography made.
        let issuer = DeviceCertificateIssuer(h.authority, secrets: try h.authoritySecrets())
        let exported = try await h.pool.transaction { try await issuer.trust(on: $0) }
        let caFile = FileManager.default.temporaryDirectory.appendingPathComponent("device-cas-\(h.id).pem").path
        try (try exported.pem() + made.ca_pem).write(toFile: caFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: caFile) }
        let (authority, aggregator) = try await h.startBoth(["HALLMARK_AGGREGATOR_DEVICE_CA_FILE": caFile])
        let (edge, client) = try await h.startEdge("cert", ["HALLMARK_EDGE_ANSWER_WAIT_MS": "30000"])
        defer { [authority, aggregator, edge].forEach { $0.signal(SIGKILL) } }

        // A camera in certificate mode: both signed forms, both encodings, accepted.
        let cam = try await h.provisioned("CAM-\(h.id)-cert", certificate: true)
        var sent: [String] = []
        var certificates: [String] = []
        for (form, signed) in [(ProvisioningFile.CertificateForm.pi, "image_hash_timestamp"), (.ios, "canonical")] {
            let bundle = try cam.certificateBundle(
                imageHash: EdgeSubmissionTests.hash(), form: form, gpsHash: EdgeSubmissionTests.hash())
            sent.append(bundle.imageHash!)
            certificates.append(bundle.cameraCert!)
            let answer = try await client.outcome(try await client.post("/api/v1/submit-cert", Self.body(bundle)))
            #expect(answer.status == 202 && answer["status"] as? String == "accepted", "\(form): \(answer.json ?? [:])")
            #expect(answer["signed_fields"] as? String == signed)
        }

        // The same certificate, hash and time, signed again (other bytes, another receipt): a
        // duplicate, which takes the first one's outcome without asking the authority again.
        let first = try cam.certificateBundle(imageHash: EdgeSubmissionTests.hash(), form: .pi, timestamp: 1_765_000_000)
        let again = try cam.certificateBundle(imageHash: first.imageHash!, form: .pi, timestamp: 1_765_000_000)
        #expect(first.bundleSignature != again.bundleSignature)
        sent.append(first.imageHash!)
        let accepted = try await client.outcome(try await client.post("/api/v1/submit-cert", Self.body(first)))
        #expect(accepted["status"] as? String == "accepted")
        let repeated = try await client.outcome(try await client.post("/api/v1/submit-cert", Self.body(again)))
        #expect(
            repeated["status"] as? String == "duplicate" && repeated["receipt_id"] as? String != accepted["receipt_id"] as? String
        )
        let questionIDs = try [accepted, repeated].map { answer in
            let receipt = try #require((answer["receipt_id"] as? String).flatMap { UUID(text: $0) })
            return h.idKey.derive(from: receipt, "token-request").text
        }
        let (asked, notAsked) = (questionIDs[0], questionIDs[1])

        // What PyPI cryptography made to be refused, and what its trusted CA signed for a device
        // this authority never provisioned: the typed reason over HTTP and over Kafka alike.
        let signature = made.good[0].signature
        var cases = made.refused.map { (what: $0.what, cert: $0.cert, signature: signature, reason: $0.reason) }
        cases += made.bad_signatures.map { (what: $0.what, cert: made.cert, signature: $0.signature, reason: "bad_signature") }
        cases += made.good.map { (what: $0.what, cert: $0.cert, signature: $0.signature, reason: "unknown_device") }
        for c in cases {
            let good = made.good.first { $0.cert == c.cert && $0.signature == c.signature }
            let bundle = Submission(
                certificateBundle: made.image_hash, cameraCert: c.cert, bundleSignature: c.signature,
                timestamp: made.timestamp, gpsHash: good?.gps_hash)
            let http = try await client.outcome(try await client.post("/api/v1/submit-cert", Self.body(bundle)))
            #expect(http["status"] as? String == "rejected" && http["reason"] as? String == c.reason, "HTTP, \(c.what)")
            let kafka = try await h.submitRaw(Message(bundle))
            #expect(kafka.first?["reason"] as? String == c.reason, "Kafka, \(c.what)")
            certificates.append(c.cert)
        }

        // Blacklisted: the authority, asked about the handle, says so.
        try await h.sendAdmin(Message(AdminCommand(command: .blacklist, deviceSerial: cam.deviceSerial, reason: "stolen")))
        #expect(
            try await eventually(timeout: .seconds(20)) {
                let bundle = try cam.certificateBundle(imageHash: EdgeSubmissionTests.hash(), form: .pi)
                let answer = try await client.outcome(try await client.post("/api/v1/submit-cert", Self.body(bundle)))
                if answer["status"] as? String == "accepted" { sent.append(bundle.imageHash!) }
                return answer["reason"] as? String == "blacklisted"
            })
        let blacklisted = try await h.submitRaw(
            Message(try cam.certificateBundle(imageHash: EdgeSubmissionTests.hash(), form: .ios)))
        #expect(blacklisted.first?["reason"] as? String == "blacklisted")

        // Only the accepted hashes are in the log.
        #expect(Set(try await h.storedLeaves().map(\.1)) == Set(sent))
        try await Self.expectNoCertificate(certificates, sent: sent, h, processes: [authority, aggregator, edge])
        // The first was asked about; the same bundle again never was.
        let questions = h.watcher.messages(on: h.authority.tokenInput).map { String(decoding: $0, as: UTF8.self) }.joined()
        #expect(questions.contains(asked) && !questions.contains(notAsked))
    }

    /// CA rotation (DESIGN BM-CERT, #56): `hallmark authority ca rotate` makes a new issuing CA
    /// and writes the CAs to trust, the old one with its `Trusted-Until`; the running
    /// aggregator reads the file again. A camera certified by the new CA is accepted; one
    /// certified by the old CA is accepted until that time and `untrusted_certificate` after it.
    @Test func aRotatedCAIsTrustedUntilItsTime() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let authority = try await h.startAuthority("a")
        defer { authority.signal(SIGKILL) }
        let old = try await h.provisioned("CAM-\(h.id)-old", certificate: true)
        let caFile = FileManager.default.temporaryDirectory.appendingPathComponent("device-cas-\(h.id).pem").path
        defer { try? FileManager.default.removeItem(atPath: caFile) }
        #expect(try await Self.ca(h, ["export", "--out", caFile]).status == 0)
        let aggregator = try await h.startAggregator("g", ["HALLMARK_AGGREGATOR_DEVICE_CA_FILE": caFile])
        let (edge, client) = try await h.startEdge("rotation", ["HALLMARK_EDGE_ANSWER_WAIT_MS": "30000"])
        defer { [aggregator, edge].forEach { $0.signal(SIGKILL) } }
        func outcome(_ camera: ProvisioningFile) async throws -> String? {
            let bundle = try camera.certificateBundle(imageHash: EdgeSubmissionTests.hash(), form: .pi)
            let answer = try await client.outcome(try await client.post("/api/v1/submit-cert", Self.body(bundle)))
            return answer["status"] as? String == "accepted" ? "accepted" : answer["reason"] as? String
        }
        #expect(try await outcome(old) == "accepted")

        // Rotated: the old CA trusted for a little while more, the file written again.
        let until = Date().addingTimeInterval(15).formatted(.iso8601)
        let rotated = try await Self.ca(h, ["rotate", "--trust-old-until", until, "--out", caFile])
        #expect(rotated.status == 0, "\(rotated.output)")
        let text = try String(contentsOfFile: caFile, encoding: .utf8)
        #expect(text.components(separatedBy: "BEGIN CERTIFICATE").count == 3 && text.contains("Trusted-Until: \(until)"))
        let new = try await h.provisioned("CAM-\(h.id)-new", certificate: true)
        #expect(new.certificateChain != old.certificateChain)
        // The aggregator reads the file again within seconds: the new CA's camera is accepted.
        #expect(try await eventually(timeout: .seconds(20)) { try await outcome(new) == "accepted" })
        #expect(try await outcome(old) == "accepted")
        // Past the old CA's time, its cameras are refused, the new CA's still accepted.
        #expect(try await eventually(timeout: .seconds(40)) { try await outcome(old) == "untrusted_certificate" })
        #expect(try await outcome(new) == "accepted")
        #expect(try await Self.ca(h, ["export"]).output.components(separatedBy: "BEGIN CERTIFICATE").count == 2)
    }

    /// `hallmark authority ca …` against the harness's authority (its schema, KEK and database).
    static func ca(_ h: AggregatorHarness, _ arguments: [String]) async throws -> Subprocess.Result {
        let environment = ServiceProcess.inheritedEnvironment.merging(h.authority.placementEnvironment) { $1 }
            .merging(["HALLMARK_AUTHORITY_KEK_FILE": h.secretsFile]) { $1 }
        return try await Subprocess.run(
            ServiceProcess.binaryDirectory.appendingPathComponent("hallmark").path, ["authority", "ca"] + arguments,
            environment: environment)
    }

    /// The body a camera POSTs: the bundle's members, `software_cert` null as the Pi sends it.
    static func body(_ bundle: Submission) throws -> [UInt8] {
        var text = String(decoding: try JSONCoding.encode(bundle), as: UTF8.self)
        text = #"{"software_cert":null,"# + text.dropFirst()
        return Array(text.utf8)
    }

    /// No certificate in PostgreSQL (every table of the three services' schemas), the services'
    /// logs, their events, their rejected records or their answers; and no image hash in
    /// anything the authority was sent.
    static func expectNoCertificate(
        _ certificates: [String], sent: [String], _ h: AggregatorHarness, processes: [ServiceProcess]
    ) async throws {
        // A certificate's DER shown as PostgreSQL shows bytes, and as sent, from its middle (a
        // prefix is the same for every certificate of a CA).
        let needles: [String] = certificates.flatMap { cert -> [String] in
            var found = [String(cert.dropFirst(cert.count / 2).prefix(48))]
            if let der = Data(base64Encoded: cert), der.count > 100 {
                found.append(Hex.encode(der.dropFirst(der.count / 2).prefix(32)))
            }
            return found
        }
        var haystacks: [(String, String)] = []
        for schema in [h.aggregator.schema, h.authority.schema, "edge_\(h.id)"] {
            let tables = try await h.pool.query(
                "SELECT tablename FROM pg_tables WHERE schemaname = \(schema)"
            ).decode(String.self)
            for table in tables {
                let text = try await h.pool.query(
                    "SELECT coalesce(string_agg(t::text, ' '), '') FROM \(unescaped: schema).\(unescaped: table) t"
                ).decode(String.self)
                haystacks.append(("\(schema).\(table)", text.first ?? ""))
            }
        }
        for process in processes { haystacks.append(("log \(process.name)", process.rawLog)) }
        let published = [
            h.rejected, h.authorityRejected, h.security, h.authority.auditTopic, h.aggregator.submissionOutput,
            h.authority.tokenInput, h.authority.tokenOutput,
        ]
        for topic in published {
            haystacks.append((topic, h.watcher.messages(on: topic).map { String(decoding: $0, as: UTF8.self) }.joined()))
        }
        #expect(haystacks.count > 10)
        for (place, text) in haystacks {
            for needle in needles { #expect(!text.contains(needle), "a certificate in \(place)") }
        }
        // The authority's questions: a handle and a certificate serial, never an image hash.
        let questions = h.watcher.messages(on: h.authority.tokenInput).map { String(decoding: $0, as: UTF8.self) }.joined()
        #expect(questions.contains(DeviceRequest.schemaName))
        for hash in sent { #expect(!questions.contains(hash)) }
    }
}
