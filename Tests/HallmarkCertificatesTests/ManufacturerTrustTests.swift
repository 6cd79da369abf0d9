import Crypto
import Foundation
import HallmarkCertificates
import Testing
import X509

/// ``ManufacturerTrust``: the PEM bundle `hallmark authority ca export` writes and the
/// aggregator reads (DESIGN BM-CERT), with a `Trusted-Until` line ending an old CA's trust.
@Suite("Manufacturer trust", .timeLimit(.minutes(1)))
struct ManufacturerTrustTests {
    static func ca(_ name: String) throws -> ManufacturerCA {
        try ManufacturerCA.generate(name: name, validity: Date().addingTimeInterval(-60)..<Date().addingTimeInterval(86_400))
    }

    @Test func anOldCAIsTrustedUntilItsTime() throws {
        let (new, old) = (try Self.ca("new"), try Self.ca("old"))
        let until = Date(timeIntervalSince1970: 1_800_000_000)
        let trust = ManufacturerTrust(anchors: [
            .init(certificate: new.certificate, trustedUntil: nil), .init(certificate: old.certificate, trustedUntil: until),
        ])
        let text = try trust.pem()
        #expect(text.contains("Trusted-Until: 2027-01-15T08:00:00Z"))
        let read = try ManufacturerTrust.read("comment lines are explanatory text\n" + text)
        #expect(read.anchors.map(\.certificate) == [new.certificate, old.certificate])
        #expect(read.anchors.map(\.trustedUntil) == [nil, until])
        #expect(read.trusted(at: until.addingTimeInterval(-1)) == [new.certificate, old.certificate])
        #expect(read.trusted(at: until) == [new.certificate])
        // Any PEM bundle of CA certificates reads, CRLF included.
        let plain = try new.certificate.serializeAsPEM().pemString.replacingOccurrences(of: "\n", with: "\r\n")
        #expect(try ManufacturerTrust.read(plain).anchors.count == 1)
    }

    @Test func whatIsNotABundleOfCAsDoesNotRead() throws {
        let ca = try Self.ca("ca")
        let pem = try ca.certificate.serializeAsPEM().pemString
        let device = try ca.issue(
            deviceKey: P256.Signing.PrivateKey().publicKey, serial: "CAM-1", now: Date(), validity: 3600
        ) { _ in [1, 2, 3] }
        let cases = [
            "", "no certificate here", String(pem.dropLast(30)), "Trusted-Until: soon\n" + pem,
            pem.replacingOccurrences(of: "MII", with: "MIJ"), try device.serializeAsPEM().pemString,
        ]
        for text in cases {
            #expect(throws: ManufacturerTrust.ReadError.self) { try ManufacturerTrust.read(text) }
        }
    }
}
