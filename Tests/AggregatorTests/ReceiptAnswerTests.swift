import Foundation
import HallmarkCore
import HallmarkMessages
import Testing

@testable import EdgeCore

/// What a camera is answered about its submission, read from the aggregator's stored result.
@Suite("Receipt answers", .timeLimit(.minutes(1)))
struct ReceiptAnswerTests {
    static let receipt = MessageID.random()
    static let hash = String(repeating: "ab", count: 32)
    static let produced = Timestamp("2026-12-03T05:00:00.123Z")!

    static func answer(_ result: [UInt8]?) throws -> JSONValue {
        try JSONReader.parse(ReceiptAnswer.json(receipt: receipt, result: result, at: produced))
    }

    static func result(_ body: SubmissionResult) throws -> [UInt8] {
        try JSONCoding.encode(Message(body, producedAt: produced, correlationID: receipt.text))
    }

    @Test func anAcceptedSubmissionNamesItsLeavesAndTree() throws {
        let body = SubmissionResult(
            leaves: [
                .init(imageHash: Self.hash, leafIndex: 41, status: .appended),
                .init(imageHash: Self.hash, leafIndex: 7, status: .duplicate),
            ],
            treeSize: 42)
        let answer = try Self.answer(try Self.result(body))
        // Written directly, the bytes are the canonical ones: sorted members, as JSONWriter writes.
        let written = ReceiptAnswer.json(receipt: Self.receipt, result: try Self.result(body), at: Self.produced)
        #expect(written == JSONWriter.write(answer))
        #expect(
            answer
                == .object([
                    "receipt_id": .string(Self.receipt.text), "status": .string("accepted"),
                    "message": .string("Submission validated and logged"), "timestamp": .string(Self.produced.text),
                    "tree_size": .number("42"),
                    "leaves": .array([
                        .object(["image_hash": .string(Self.hash), "leaf_index": .number("41"), "status": .string("appended")]),
                        .object(["image_hash": .string(Self.hash), "leaf_index": .number("7"), "status": .string("duplicate")]),
                    ]),
                ]))
        let duplicate = try Self.answer(
            try Self.result(
                SubmissionResult(leaves: [.init(imageHash: Self.hash, leafIndex: 7, status: .duplicate)], treeSize: 9)))
        #expect(
            duplicate["status"] == .string("duplicate")
                && duplicate["message"] == .string("Every image hash was already in the log"))
    }

    @Test func aRejectedSubmissionNamesItsReason() throws {
        let answer = try Self.answer(try Self.result(SubmissionResult(reason: .replayedToken)))
        #expect(
            answer
                == .object([
                    "receipt_id": .string(Self.receipt.text), "status": .string("rejected"), "reason": .string("replayed_token"),
                    "message": .string("Submission rejected: replayed_token"), "timestamp": .string(Self.produced.text),
                ]))
    }

    /// No result yet, or one that is not as its schema says: pending, never a made-up outcome.
    @Test func noResultOrABrokenOneIsPending() throws {
        let good = String(decoding: try Self.result(SubmissionResult(reason: .blacklisted)), as: UTF8.self)
        let broken = [
            "not json", "{}", good.replacingOccurrences(of: "\"rejected\"", with: "\"maybe\""),
            good.replacingOccurrences(of: "\"blacklisted\"", with: "\"bored\""),
            good.replacingOccurrences(of: "\"blacklisted\"", with: "7"),
            good.replacingOccurrences(of: "2026-12-03T05:00:00.123Z", with: "yesterday"),
        ]
        for result in [nil] + broken.map({ Array($0.utf8) }) {
            let answer = try Self.answer(result)
            #expect(
                answer["status"] == .string("pending_validation"),
                "\(result.map { String(decoding: $0, as: UTF8.self) } ?? "nil")")
            #expect(answer["timestamp"] == .string(Self.produced.text) && answer["reason"] == nil)
        }
        let leaf = #"{"image_hash":"\#(Self.hash)","leaf_index":-1,"status":"appended"}"#
        let badLeaf =
            #"{"id":"\#(MessageID.random().text)","produced_at":"\#(Self.produced.text)","schema":"hallmark.submission.result.v1","status":"accepted","leaves":[\#(leaf)]}"#
        #expect(try Self.answer(Array(badLeaf.utf8))["status"] == .string("pending_validation"))
    }
}
