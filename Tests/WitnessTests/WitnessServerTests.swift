import Foundation
import HallmarkCrypto
import Logging
import ServiceLifecycle
import Testing

@testable import WitnessCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The witness over HTTP, as an attacker reaches it: bodies one byte under, at and over the
/// limit, 8 MB, truncated and garbage are each answered 400 at once, and the witness goes on
/// cosigning; the monitoring endpoint serves only what was cosigned.
@Suite("Witness over HTTP", .serialized, .timeLimit(.minutes(2)))
struct WitnessServerTests {
    @Test func everyBodySizeIsAnsweredAndTheWitnessGoesOn() async throws {
        var log = WitnessTests.TestLog(size: 10)
        let (witness, path) = try WitnessTests.witness([log])
        defer { try? FileManager.default.removeItem(atPath: path) }
        var logger = Logger(label: "witness-server-tests")
        logger.logLevel = .critical
        let (group, port) = try await WitnessServer.start(witness, logger: logger)
        defer { Task { await group.triggerGracefulShutdown() } }
        let session = URLSession(configuration: .ephemeral)
        func post(_ body: [UInt8]) async throws -> (Int, String) {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/add-checkpoint")!, timeoutInterval: 30)
            request.httpMethod = "POST"
            request.httpBody = Data(body)
            let (data, response) = try await session.data(for: request)
            return ((response as! HTTPURLResponse).statusCode, String(decoding: data, as: UTF8.self))
        }
        func get(_ path: String) async throws -> (Int, String) {
            let (data, response) = try await session.data(from: URL(string: "http://127.0.0.1:\(port)\(path)")!)
            return ((response as! HTTPURLResponse).statusCode, String(decoding: data, as: UTF8.self))
        }

        #expect(try await post(log.request(from: 0)).0 == 200)
        log.grow(to: 20)
        let valid = log.request(from: 10)
        let limit = AddCheckpointRequest.maxSize
        // Padded with a newline-free tail to the limit and one under it: read, and refused as
        // malformed; one over it and 8 MB: refused as too large before parsing.
        for size in [limit - 1, limit] {
            let (status, body) = try await post(valid + Array(repeating: UInt8(ascii: "a"), count: size - valid.count))
            #expect(status == 400 && !body.contains("larger"), "\(size) bytes: \(status) \(body)")
        }
        for size in [limit + 1, 8 * 1024 * 1024] {
            let started = ContinuousClock.now
            let (status, body) = try await post(valid + Array(repeating: UInt8(ascii: "a"), count: size - valid.count))
            #expect(status == 400 && body.contains("larger"), "\(size) bytes: \(status) \(body)")
            #expect(ContinuousClock.now - started < .seconds(10))
        }
        for bad in [Array(valid.dropLast(7)), Array(valid.prefix(40)), [], Array(repeating: 0xff, count: 100)] {
            #expect(try await post(bad).0 == 400, "\(bad.count) bytes")
        }
        // Nothing above moved the witness: the growth it was sent is cosigned.
        let (status, cosignature) = try await post(valid)
        #expect(status == 200 && cosignature.hasPrefix("\u{2014} witness.example/w1 "))
        let originHash = Hex.encode(SHA256Hash.digest(Data(log.origin.utf8)))
        let (served, note) = try await get("/\(originHash)/checkpoint")
        #expect(served == 200)
        #expect(try SignedNote.parse(Array(note.utf8)).text == log.checkpoint().text)
        #expect(try await get("/\(String(repeating: "0", count: 64))/checkpoint").0 == 404)
        #expect(try await get("/short/checkpoint").0 == 404)
    }
}
