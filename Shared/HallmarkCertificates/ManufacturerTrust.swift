import Foundation
import SwiftASN1
import X509

/// The manufacturer CAs a certificate bundle may chain to (DESIGN BM-CERT), as a PEM bundle:
/// each `CERTIFICATE` block may be preceded by a `Trusted-Until: <RFC 3339 time>` line (RFC 7468
/// explanatory text, which PEM readers skip), after which that CA is no longer trusted: an old
/// CA kept for a while after a rotation. Other text between blocks is ignored, so any PEM
/// bundle of CA certificates reads.
public struct ManufacturerTrust: Sendable {
    /// One trusted CA.
    public struct Anchor: Sendable {
        public let certificate: Certificate
        /// When its trust ends; nil for none.
        public let trustedUntil: Date?

        public init(certificate: Certificate, trustedUntil: Date?) {
            self.certificate = certificate
            self.trustedUntil = trustedUntil
        }
    }

    /// Why a bundle cannot be read.
    public struct ReadError: Error, CustomStringConvertible {
        public let description: String

        public init(_ description: String) { self.description = description }
    }

    public let anchors: [Anchor]

    public init(anchors: [Anchor]) { self.anchors = anchors }

    /// The CAs trusted at `time`.
    public func trusted(at time: Date) -> [Certificate] {
        anchors.filter { $0.trustedUntil.map { time < $0 } ?? true }.map(\.certificate)
    }

    /// The explanatory line naming when the next certificate's trust ends.
    static let untilPrefix = "Trusted-Until:"

    /// Reads a bundle: at least one certificate, each a CA, every `Trusted-Until` a time.
    public static func read(_ text: String) throws(ReadError) -> ManufacturerTrust {
        var anchors: [Anchor] = []
        var until: Date?
        var block: [Substring]?
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if var lines = block {
                lines.append(Substring(line))
                guard line == "-----END CERTIFICATE-----" else {
                    block = lines
                    continue
                }
                block = nil
                guard let document = try? PEMDocument(pemString: lines.joined(separator: "\n")),
                    let certificate = try? Certificate(derEncoded: document.derBytes)
                else { throw ReadError("certificate \(anchors.count + 1) does not read") }
                guard case .isCertificateAuthority? = try? certificate.extensions.basicConstraints else {
                    throw ReadError("certificate \(anchors.count + 1) is not a CA")
                }
                anchors.append(Anchor(certificate: certificate, trustedUntil: until))
                until = nil
            } else if line == "-----BEGIN CERTIFICATE-----" {
                block = [Substring(line)]
            } else if line.hasPrefix(untilPrefix) {
                let value = line.dropFirst(untilPrefix.count).trimmingCharacters(in: .whitespaces)
                guard let date = try? Date(value, strategy: .iso8601) else {
                    throw ReadError("\(untilPrefix) \(value) is not an RFC 3339 time")
                }
                until = date
            }
        }
        guard block == nil else { throw ReadError("a certificate has no END line") }
        guard !anchors.isEmpty else { throw ReadError("it holds no certificate") }
        return ManufacturerTrust(anchors: anchors)
    }

    /// The bundle as ``read(_:)`` reads it.
    public func pem() throws -> String {
        try anchors.map { anchor in
            let until = anchor.trustedUntil.map { "\(Self.untilPrefix) \($0.formatted(.iso8601))\n" } ?? ""
            return until + (try anchor.certificate.serializeAsPEM().pemString) + "\n"
        }.joined()
    }
}
