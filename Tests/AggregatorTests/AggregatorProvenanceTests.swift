import AggregatorCore
import Foundation
import HallmarkClient
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// DESIGN §2's provenance rule, end to end: what breaks it is answered `rejected` /
/// `invalid_provenance`, never asks the authority and never reaches the log.
@Suite("Aggregator provenance", .serialized, .timeLimit(.minutes(5)))
struct AggregatorProvenanceTests {
    static func hash() -> String { Hex.encode(try! SecureRandom.bytes(32)) }

    @Test func provenanceIsChecked() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let (authority, aggregator) = try await h.startBoth()
        defer { [authority, aggregator].forEach { $0.signal(SIGKILL) } }
        let cam = try await h.provisioned("CAM-\(h.id)-1")
        typealias Entry = Submission.ImageHash

        // Valid: a raw hash and its processed image; then a level 2 edit of the logged processed
        // image, and a processed image of the logged raw one, each in a submission of its own.
        let (raw, processed) = (Self.hash(), Self.hash())
        var logged = [raw, processed]
        let pair = try await h.submit(
            try cam.submission(
                .reference,
                hashes: [
                    Entry(imageHash: raw, modificationLevel: 0),
                    Entry(imageHash: processed, modificationLevel: 1, parentImageHash: raw),
                ]))
        #expect(pair.status == .accepted, "\(pair.reason?.rawValue ?? "")")
        for (level, parent) in [(2, processed), (1, raw)] {
            let child = Self.hash()
            let answer = try await h.submit(
                try cam.submission(
                    .mobile,
                    hashes: [
                        Entry(imageHash: child, modificationLevel: level, parentImageHash: parent)
                    ]))
            #expect(answer.status == .accepted, "level \(level): \(answer.reason?.rawValue ?? "")")
            logged.append(child)
        }

        // Each of these was logged before.
        let other = Self.hash()
        let invalid: [(String, [Entry])] = [
            (
                "two level-0 hashes",
                [Entry(imageHash: Self.hash(), modificationLevel: 0), Entry(imageHash: Self.hash(), modificationLevel: 0)]
            ),
            (
                "a level-1 hash whose parent is not the raw hash",
                [
                    Entry(imageHash: other, modificationLevel: 0),
                    Entry(imageHash: Self.hash(), modificationLevel: 1, parentImageHash: Self.hash()),
                ]
            ),
            ("a single level-1 hash with no parent", [Entry(imageHash: Self.hash(), modificationLevel: 1)]),
            ("a raw hash with a parent", [Entry(imageHash: Self.hash(), modificationLevel: 0, parentImageHash: raw)]),
            ("a hash that is its own parent", [Entry(imageHash: other, modificationLevel: 1, parentImageHash: other)]),
            ("level 7", [Entry(imageHash: Self.hash(), modificationLevel: 7, parentImageHash: processed)]),
            (
                "a parent in the log at the same level",
                [Entry(imageHash: Self.hash(), modificationLevel: 1, parentImageHash: processed)]
            ),
            (
                "a parent in the submission at the same level",
                [
                    Entry(imageHash: other, modificationLevel: 1, parentImageHash: raw),
                    Entry(imageHash: Self.hash(), modificationLevel: 1, parentImageHash: other),
                ]
            ),
            (
                "a level-1 raw hash with no parent",
                [
                    Entry(imageHash: Self.hash(), modificationLevel: 1), Entry(imageHash: Self.hash(), modificationLevel: 0),
                ]
            ),
        ]
        var refused: [Message<Submission>] = []
        for (what, entries) in invalid {
            let submission = try cam.submission(.reference, hashes: entries)
            let answers = try await h.submitRaw(submission)
            #expect(
                answers.count == 1 && answers[0]["status"] as? String == "rejected"
                    && answers[0]["reason"] as? String == "invalid_provenance", "\(what): \(answers)")
            refused.append(submission)
        }
        // Sent again: the recorded answer, byte for byte.
        let again = refused[0].id
        try await h.send([refused[0]])
        #expect(await h.watcher.wait(timeout: .seconds(30)) { $0.answers(for: again).count == 2 })
        #expect(Set(h.watcher.answers(for: again)).count == 1)

        // Nothing refused was logged, and no token of a refused submission reached the authority.
        #expect(Set(try await h.storedLeaves().map(\.1)) == Set(logged))
        let asked = Set(
            h.watcher.messages(on: h.authority.tokenInput).compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any])?["id"] as? String
            })
        #expect(asked.count == 3)
        #expect(asked.isDisjoint(with: refused.map { h.idKey.derive(from: $0.id.uuid, "token-request").text }))
        for (_, bytes) in h.watcher.outputs(on: [h.aggregator.submissionOutput]) {
            try SchemaCheck.validate(try JSONSerialization.jsonObject(with: Data(bytes)), against: SubmissionResult.schemaName)
        }
    }
}
