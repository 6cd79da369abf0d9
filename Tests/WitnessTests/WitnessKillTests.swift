import Foundation
import HallmarkCrypto
import HallmarkTestSupport
import Testing

@testable import WitnessCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Two `hallmark witness serve` processes sharing one state file, each fed growing checkpoints
/// of one log by its own client at once; one is SIGKILLed mid-load. The state file is whole,
/// never behind a size either witness answered 200 for, and the survivor and a restarted
/// witness carry on from it.
@Suite("Witness processes under SIGKILL", .serialized, .timeLimit(.minutes(3)))
struct WitnessKillTests {
    /// A witness process on a free loopback port.
    struct Running {
        let process: ServiceProcess
        let port: Int
    }

    static func start(_ name: String, environment: [String: String]) async throws -> Running {
        let process = try ServiceProcess(
            "hallmark", arguments: ["witness", "serve"], name: name,
            environment: environment.merging(["HALLMARK_WITNESS_LISTEN": "127.0.0.1:0"]) { $1 })
        let found = try await eventually(timeout: .seconds(30), interval: .milliseconds(50)) {
            process.rawLog.firstMatch(of: /port=(\d+)/) != nil || !process.process.isRunning
        }
        guard found, let match = process.rawLog.firstMatch(of: /port=(\d+)/), let port = Int(match.1) else {
            throw HarnessError("the witness did not start: \(process.rawLog.suffix(500))")
        }
        return Running(process: process, port: port)
    }

    /// Posts growing checkpoints of `log` to `port` until `stop` says so or the witness is
    /// gone; returns the sizes answered 200, in order.
    static func feed(_ log: WitnessTests.TestLog, port: Int, seed: UInt64, stop: @Sendable @escaping () -> Bool) async -> [Int] {
        let session = URLSession(configuration: .ephemeral)
        var generator = SplitMix64(seed: seed)
        var old = 0
        var cosigned: [Int] = []
        while !stop() {
            let new = min(log.leaves.count, old + Int.random(in: 1...25, using: &generator))
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/add-checkpoint")!, timeoutInterval: 10)
            request.httpMethod = "POST"
            request.httpBody = Data(log.request(from: old, to: new))
            guard let (data, response) = try? await session.data(for: request), let http = response as? HTTPURLResponse
            else { break }
            switch http.statusCode {
            case 200:
                cosigned.append(new)
                old = new
            case 409: old = Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)) ?? old
            default:
                Issue.record("a consistent checkpoint was refused: \(http.statusCode) \(String(decoding: data, as: UTF8.self))")
                return cosigned
            }
            if old >= log.leaves.count { break }
        }
        return cosigned
    }

    @Test func theStateSurvivesAKillAndNeverGoesBack() async throws {
        let log = WitnessTests.TestLog(size: 4_000)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("witness-kill-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = folder.appendingPathComponent("witness.key").path
        try Ed25519SeedFile.write(try SecureRandom.bytes(32), to: key, comment: "test witness key")
        let logs = folder.appendingPathComponent("logs").path
        try "log \(log.vkey)\n".write(toFile: logs, atomically: true, encoding: .utf8)
        let state = folder.appendingPathComponent("state.json").path
        let environment = [
            "HALLMARK_WITNESS_NAME": "witness.test/kill", "HALLMARK_WITNESS_KEY_FILE": key,
            "HALLMARK_WITNESS_LOGS_FILE": logs, "HALLMARK_WITNESS_STATE_FILE": state,
        ]
        let a = try await Self.start("a", environment: environment)
        let b = try await Self.start("b", environment: environment)
        async let fedA = Self.feed(log, port: a.port, seed: 1) { false }
        async let fedB = Self.feed(log, port: b.port, seed: 2) { false }
        // Kill A once the pair has cosigned a few hundred leaves between them.
        _ = try await eventually(timeout: .seconds(60), interval: .milliseconds(5)) {
            (try? WitnessState.load(state).logs[log.origin]?.size).flatMap { $0 } ?? 0 >= 300
        }
        a.process.signal(SIGKILL)
        let (cosignedA, cosignedB) = await (fedA, fedB)
        #expect(!cosignedA.isEmpty && !cosignedB.isEmpty)
        // B carried on to the end of the log alone.
        #expect(cosignedB.last == log.leaves.count, "\(cosignedB.suffix(3))")

        // The file is whole, at the largest size either answered 200 for, with that size's root.
        let kept = try #require(try WitnessState.load(state).logs[log.origin])
        let largest = (cosignedA + cosignedB).max()!
        #expect(kept.size == UInt64(largest))
        #expect(kept.root == Base64.encode(MerkleTree.root(leafHashes: Array(log.leaves.prefix(Int(kept.size))))))
        // A restarted witness holds that size: a stale old size gets it back as a 409.
        let again = try await Self.start("a-again", environment: environment)
        let stale = await Self.feed(log, port: again.port, seed: 3) { false }
        #expect(stale.isEmpty, "nothing is left to cosign, and nothing goes back: \(stale)")
        b.process.signal(SIGTERM)
        again.process.signal(SIGTERM)
        #expect(await b.process.waitForExit(timeout: .seconds(10)) == 0)
        #expect(await again.process.waitForExit(timeout: .seconds(10)) == 0)
    }
}
