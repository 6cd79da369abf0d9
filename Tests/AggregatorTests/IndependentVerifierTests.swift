import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkPostgres
import HallmarkSubprocess
import Testing

@testable import AggregatorCore
@testable import HallmarkCLICore

/// The log as `hallmark aggregator tiles` writes it, from a real PostgreSQL, checked by two
/// verifiers nobody here wrote the cryptography of: golang.org/x/mod/sumdb/note and /tlog
/// (Debian's, `Tests/Verifiers/tlogcheck`) and PyPI's tlog-scales
/// (`Tests/Verifiers/tlog_scales_check.py`). Each opens the checkpoint with the vkey,
/// authenticates every tile, proves inclusion of random entries and consistency with an earlier
/// checkpoint; and each refuses a tampered entry, a tampered tile, a checkpoint signed by
/// another key and an earlier checkpoint from another history.
@Suite("The log checked by independent verifiers", .serialized, .timeLimit(.minutes(10)))
struct IndependentVerifierTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The two verifiers: the Go one built once, offline, in GOPATH mode; tlog-scales in the
    /// project's venv (deploy/local/setup installs both).
    struct Verifiers {
        let go: String
        let python: String
        let environment: [String: String]

        static func make() async throws -> Verifiers {
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tlogcheck-\(UUID())").path
            var environment = ProcessInfo.processInfo.environment
            environment["GO111MODULE"] = "off"
            environment["GOPATH"] = "/usr/share/gocode"
            environment["GOPROXY"] = "off"
            environment["GOFLAGS"] = ""
            environment["GOCACHE"] = scratch + "/cache"
            let binary = scratch + "/tlogcheck"
            let build = try await Subprocess.run(
                "/usr/bin/env", ["go", "build", "-o", binary, root + "/Tests/Verifiers/tlogcheck/main.go"],
                environment: environment, timeout: .seconds(300))
            #expect(build.status == 0, "go build: \(build.output)")
            let state = ProcessInfo.processInfo.environment["HALLMARK_STATE"] ?? root + "/.hallmark"
            return Verifiers(go: binary, python: state + "/venv/bin/python", environment: environment)
        }

        /// Both verdicts (exit statuses) on `dir`, with their output.
        func check(_ dir: String, vkey: NoteVerifierKey, old: String? = nil) async throws -> [(Int32, String)] {
            let oldArgs = old.map { ["-old", $0] } ?? []
            let go = try await Subprocess.run(
                self.go, ["-vkey", vkey.description, "-dir", dir, "-n", "20"] + oldArgs, environment: environment)
            let python = try await Subprocess.run(
                self.python,
                [root + "/Tests/Verifiers/tlog_scales_check.py", "--vkey", vkey.description, "--dir", dir, "-n", "20"]
                    + (old.map { ["--old", $0] } ?? []), environment: environment)
            return [(go.status, "go: " + go.output), (python.status, "tlog-scales: " + python.output)]
        }
    }

    @Test func theLogIsVerifiedAndTamperingIsRefused() async throws {
        let log = try await LogTilesTests.build(70_000)
        defer {
            Task {
                _ = try? await log.pool.execute("DROP SCHEMA IF EXISTS \(unescaped: log.schema) CASCADE")
                log.pool.close()
            }
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("log-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try await log.pool.withConnection { try await TileDirectory(path: dir).write(LogStore(schema: log.schema), on: $0) }
        let earlier = dir + ".earlier-checkpoint"
        try Data(try #require(log.notes[30_000]).utf8).write(to: URL(fileURLWithPath: earlier))
        defer { try? FileManager.default.removeItem(atPath: earlier) }
        let verifiers = try await Verifiers.make()

        for (status, output) in try await verifiers.check(dir, vkey: log.vkey, old: earlier) {
            #expect(status == 0, "\(output)")
        }

        /// Changes one byte of a file, checks that both verifiers refuse, and puts it back.
        func refusedAfterFlipping(_ file: String, at offset: Int) async throws {
            let path = dir + "/" + file
            let original = try #require(FileManager.default.contents(atPath: path))
            var tampered = original
            tampered[offset] ^= 0x01
            try tampered.write(to: URL(fileURLWithPath: path))
            for (status, output) in try await verifiers.check(dir, vkey: log.vkey) {
                #expect(status == 1, "\(file) tampered at \(offset): \(output)")
            }
            try original.write(to: URL(fileURLWithPath: path))
        }
        // An entry (the capture time of entry 100 in bundle 100), a level-0 and a level-1 tile.
        try await refusedAfterFlipping("tile/entries/100", at: 100 * 75 + 2 + 35)
        try await refusedAfterFlipping("tile/0/200", at: 17 * 32)
        try await refusedAfterFlipping("tile/1/000", at: 3 * 32 + 5)

        // The same checkpoint signed by another key.
        let checkpointFile = dir + "/checkpoint"
        let genuine = try #require(FileManager.default.contents(atPath: checkpointFile))
        let text = try CheckpointText(parsing: try SignedNote.parse(Array(genuine)).text)
        let forged = try CheckpointSigningKey.generate().signer(origin: text.origin).note(text, time: 1_800_000_000)
        try Data(forged.formatted.utf8).write(to: URL(fileURLWithPath: checkpointFile))
        for (status, output) in try await verifiers.check(dir, vkey: log.vkey) {
            #expect(status == 1, "another key: \(output)")
        }
        try genuine.write(to: URL(fileURLWithPath: checkpointFile))

        // An earlier checkpoint, signed by the log's own key, of another history.
        let fork = try log.key.signer(origin: log.vkey.name).note(
            CheckpointText(origin: log.vkey.name, treeSize: 30_000, rootHash: try SecureRandom.bytes(32)), time: 1_800_000_000)
        try Data(fork.formatted.utf8).write(to: URL(fileURLWithPath: earlier))
        for (status, output) in try await verifiers.check(dir, vkey: log.vkey, old: earlier) {
            #expect(status == 1, "an inconsistent pair: \(output)")
        }
        // And untouched, it all checks out again.
        for (status, output) in try await verifiers.check(dir, vkey: log.vkey) {
            #expect(status == 0, "\(output)")
        }
    }
}
