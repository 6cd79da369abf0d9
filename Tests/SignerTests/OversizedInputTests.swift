import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// Issue #10 §1 on both of the signer's inputs: inputs of 0.9–8 MB and at the limit ±1 byte,
/// padded with whitespace (the request itself is small) or with a large body (then its result,
/// which echoes the body, may not fit: `oversized`), each followed by small messages on the same
/// key and on another key. Every message gets exactly one outcome and nothing stalls.
@Suite("Signer: no input size stalls a partition", .serialized, .timeLimit(.minutes(8)))
struct SignerOversizedInputTests {
    @Test func everySizeOnBothInputsGetsOneOutcome() async throws {
        let h = try await SignerHarness(secrets: ["v1": "size-secret"], signing: "v1")
        let signer = try await h.startSigner("sizes")
        let limit = 1 << 20
        let matrix = try SizeMatrix(kafka: h.kafka, logger: h.logger)
        /// A message made at `size` bytes (give or take 3) by its body, or small.
        func sized(_ size: Int?, _ make: (Data) throws -> [UInt8]) throws -> [UInt8] {
            let small = try make(Data(repeating: 0x61, count: 16))
            guard let size else { return small }
            let room = max(0, size - (small.count - 24)) / 4 * 3  // 16 bytes are 24 in base64
            return try make(Data(repeating: 0x61, count: room))
        }
        let sign = try await matrix.run(
            topic: h.signInput, results: h.signOutput, idField: "request_id",
            rejected: h.rejected, limit: limit, paddings: [.whitespace, .content]
        ) { id, size in
            try sized(size) { body in
                try JSONCoding.encode(
                    Message(
                        SignRequest(headers: ["SmileID-Partner-ID": "p1"], bodyB64: body.base64EncodedString()),
                        id: MessageID(id)!))
            }
        }
        let verify = try await matrix.run(
            topic: h.verifyInput, results: h.verifyOutput, idField: "request_id",
            rejected: h.rejected, limit: limit, paddings: [.whitespace, .content]
        ) { id, size in
            try sized(size) { body in
                try JSONCoding.encode(
                    Fixtures.verify(try Fixtures.signedHeaders(secret: "size-secret", body: body), body: body, id: MessageID(id)!)
                )
            }
        }
        for report in [sign, verify] {
            #expect(report.stalled == 0 && report.duplicated == 0 && report.answered == report.sent, "\(report)")
            for line in report.large {
                let size = Int(line.prefix { $0.isNumber })!
                // Over the limit: oversized. A small request is answered; a large body's result
                // fits only while the body leaves room for the rest of the result.
                if size > limit { #expect(line.hasSuffix(": oversized"), "\(line)") }
                if line.contains("whitespace"), size <= limit { #expect(line.hasSuffix(": result"), "\(line)") }
                // A body that takes the request to the limit leaves no room for the result's headers.
                if line.contains("content"), size >= limit - 8, size <= limit {
                    #expect(line.hasSuffix(": oversized"), "\(line)")
                }
                if line.contains("content"), size <= 900_000 { #expect(line.hasSuffix(": result"), "\(line)") }
            }
        }
        signer.signal(SIGTERM)
        #expect(await signer.waitForExit(timeout: .seconds(30)) == 0)
        await matrix.close()
        await h.close()
    }
}
