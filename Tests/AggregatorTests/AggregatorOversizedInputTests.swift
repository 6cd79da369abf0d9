import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// Issue #10 §1 on the aggregator's inputs (submissions, verification questions): inputs of
/// 0.9–8 MB and at the limit ±1 byte, each followed by small messages on the same key and on
/// another key. Every message gets exactly one outcome and nothing stalls; over the limit the
/// outcome is `oversized`.
@Suite("Aggregator: no input size stalls a partition", .serialized, .timeLimit(.minutes(8)))
struct AggregatorOversizedInputTests {
    @Test func everySizeOnEveryInputGetsOneOutcome() async throws {
        let h = try await AggregatorHarness()
        let (authority, aggregator) = try await h.startBoth()
        let g = h.aggregator, limit = 1 << 20
        let matrix = try SizeMatrix(kafka: h.kafka, logger: h.logger)
        func hex(_ n: Int) throws -> String { Hex.encode(try SecureRandom.bytes(n)) }
        // A token no table opens: the authority answers FAIL, so each submission gets one answer.
        let submissions = try await matrix.run(
            topic: g.submissionInput, results: g.submissionOutput, idField: "request_id",
            rejected: h.rejected, limit: limit
        ) { id, _ in
            let token = BirthmarkCameraToken(
                ciphertext: try hex(32), authTag: try hex(16), nonce: try hex(12),
                tableId: 1, keyIndex: 7)
            return try JSONCoding.encode(
                Message(
                    Submission(
                        imageHashes: [.init(imageHash: try hex(32), modificationLevel: 0)], token: .reference(token),
                        timestamp: 1_700_000_000), id: MessageID(id)!))
        }
        let questions = try await matrix.run(
            topic: g.verifyInput, results: g.verifyOutput, idField: "request_id",
            rejected: h.rejected, limit: limit
        ) { id, _ in
            try JSONCoding.encode(Message(LogVerifyRequest(imageHash: try hex(32)), id: MessageID(id)!))
        }
        for report in [submissions, questions] {
            #expect(report.stalled == 0 && report.duplicated == 0 && report.answered == report.sent, "\(report)")
            for line in report.large where Int(line.prefix { $0.isNumber })! > limit {
                #expect(line.hasSuffix(": oversized"), "\(line)")
            }
        }
        aggregator.signal(SIGTERM)
        #expect(await aggregator.waitForExit(timeout: .seconds(30)) == 0)
        authority.signal(SIGKILL)
        await matrix.close()
        await h.close()
    }
}
