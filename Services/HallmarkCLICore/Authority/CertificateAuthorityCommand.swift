import ArgumentParser
import AuthorityCore
import Foundation
import HallmarkCertificates
import HallmarkPostgres
import HallmarkRuntime
import Logging

/// `hallmark authority ca …`: the manufacturer CA that issues device certificates (DESIGN
/// BM-CERT), run with the authority's database and secrets like `generate-tables`.
package struct CertificateAuthorityCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "ca", abstract: "The manufacturer CA of device certificates: export what to trust, rotate.",
        subcommands: [Export.self, Rotate.self])

    package init() {}

    /// `hallmark authority ca export [--out FILE]`: the CAs an aggregator should trust, as its
    /// `HALLMARK_AGGREGATOR_DEVICE_CA_FILE` reads them; makes the CA if there is none yet.
    package struct Export: AsyncParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "export", abstract: "Write the CAs to trust (PEM, with Trusted-Until lines); certificates only.")

        @Option(help: "Where to write them (default: stdout).") var out: String?

        package init() {}

        package func run() async throws {
            try await CertificateAuthorityCommand.write(out) { issuer, connection in try await issuer.trust(on: connection) }
        }
    }

    /// `hallmark authority ca rotate --trust-old-until TIME [--out FILE]`.
    package struct Rotate: AsyncParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "rotate",
            abstract: "Make a new issuing CA; the old one stays trusted until the given time. Writes the CAs to trust.")

        @Option(help: "When the old CA's trust ends (RFC 3339, e.g. 2027-06-01T00:00:00Z).") var trustOldUntil: String
        @Option(help: "Where to write the CAs to trust (default: stdout).") var out: String?

        package init() {}

        package func run() async throws {
            guard let until = try? Date(trustOldUntil, strategy: .iso8601) else {
                throw ValidationError("--trust-old-until is an RFC 3339 time, e.g. 2027-06-01T00:00:00Z")
            }
            try await CertificateAuthorityCommand.write(out) { issuer, connection in
                try await issuer.rotate(trustingOldUntil: until, on: connection)
            }
        }
    }

    /// Runs `work` in one transaction of the authority's database and writes the CAs it returns.
    static func write(
        _ out: String?,
        _ work: @Sendable (DeviceCertificateIssuer, PostgresConnection) async throws -> ManufacturerTrust
    ) async throws {
        let (config, secrets, pool) = try await AuthorityCommand.maintenance("hallmark.authority.ca")
        defer { pool.close() }
        let issuer = DeviceCertificateIssuer(config, secrets: secrets)
        let trust = try await pool.transaction { connection in try await work(issuer, connection) }
        let pem = try trust.pem()
        guard let out else { return print(pem, terminator: "") }
        // Written whole, then moved into place: an aggregator reading it never sees half.
        try Data(pem.utf8).write(to: URL(fileURLWithPath: out), options: .atomic)
        FileHandle.standardError.write(Data("wrote \(trust.anchors.count) CA certificate(s) to \(out)\n".utf8))
    }
}
