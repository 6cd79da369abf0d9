import AggregatorCore
import Foundation
import HallmarkClient
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// DESIGN §2's provenance rule, end to end: what breaks it is answered `rejected` /
/// `invalid_provenance`, never asks the authority and never reaches the log; a parent known
/// nowhere yet is waited for (``ParentWaits``), for a window kept short here.
@Suite("Aggregator provenance", .serialized, .timeLimit(.minutes(5)))
struct AggregatorProvenanceTests {
    static func hash() -> String { Hex.encode(try! SecureRandom.bytes(32)) }

    /// The wait for a parent, in milliseconds: long enough for a parent sent at once to be
    /// logged, short enough to wait out.
    static let window = [AggregatorConfiguration.variable(\.provenanceWindow): "3000"]

    /// Whether a submission waits for its parent.
    static func waiting(_ h: AggregatorHarness, _ id: MessageID) async throws -> Bool {
        try await h.pool.query(
            "SELECT count(*) FROM \(unescaped: h.aggregator.schema).provenance_waits WHERE submission_id = \(id.uuid)"
        )[0].column(0, as: Int.self) == 1
    }

    @Test func provenanceIsChecked() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let (authority, aggregator) = try await h.startBoth(Self.window)
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
                // Known nowhere: refused once the window is over.
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

    /// DESIGN §2: a refusal that depends on state that can still change is not final. A
    /// processed bundle read before its raw one waits for it and is accepted under its token; a
    /// processed image under a token of its own waits for its parent to be logged; one whose
    /// parent never comes is refused `invalid_provenance` after the window, and the same bytes
    /// sent again once the parent is logged are judged again, not answered from memory.
    @Test func aDerivedImageWaitsForItsParent() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let (authority, aggregator) = try await h.startBoth(Self.window)
        defer { [authority, aggregator].forEach { $0.signal(SIGKILL) } }
        let cam = try await h.provisioned("CAM-\(h.id)-order")
        typealias Entry = Submission.ImageHash

        // The processed bundle first: it waits, unanswered; then the raw one comes.
        let raw = try cam.submission(.flatBundle, hashes: [Entry(imageHash: Self.hash(), modificationLevel: 0)])
        let processed = AggregatorDerivedImageTests.derived(raw)
        try await h.send([processed], byCapture: true)
        #expect(try await eventually { try await Self.waiting(h, processed.id) })
        #expect(h.answerObjects(processed.id).isEmpty)
        try await h.send([raw], byCapture: true)
        let pair = await h.answers([raw.id, processed.id])
        #expect(pair[raw.id]?.status == .accepted, "\(pair[raw.id]?.reason?.rawValue ?? "none")")
        #expect(pair[processed.id]?.status == .accepted, "\(pair[processed.id]?.reason?.rawValue ?? "none")")

        // The report's order: the processed bundle alone is refused once the window is over,
        // then its raw one is accepted, and the processed one sent again (the same bytes) is
        // judged again: accepted, under an answer id of its own.
        let raw2 = try cam.submission(.reference, hashes: [Entry(imageHash: Self.hash(), modificationLevel: 0)])
        let late = AggregatorDerivedImageTests.derived(raw2)
        #expect(try await h.submit(late).reason == .invalidProvenance)
        #expect(try await h.submit(raw2).status == .accepted)
        try await h.send([late])
        #expect(await h.watcher.wait(timeout: .seconds(60)) { _ in h.answerObjects(late.id).count == 2 })
        let answers = h.answerObjects(late.id)
        #expect(answers.map { $0["status"] as? String } == ["rejected", "accepted"])
        #expect(Set(answers.compactMap { $0["id"] as? String }).count == 2)

        // A token of its own: it waits for its parent to be logged under another, then is asked.
        let parent = Self.hash()
        let child = try cam.submission(
            .mobile, hashes: [Entry(imageHash: Self.hash(), modificationLevel: 1, parentImageHash: parent)])
        try await h.send([child])
        #expect(try await eventually { try await Self.waiting(h, child.id) })
        let parentAnswer = try await h.submit(
            try cam.submission(.packed, hashes: [Entry(imageHash: parent, modificationLevel: 0)]))
        #expect(parentAnswer.status == .accepted)
        #expect(await h.answers([child.id])[child.id]?.status == .accepted)

        // Each logged under its parent; the processed bundles were never asked about.
        let leaves = try await AggregatorDerivedImageTests.leaves(h)
        for (image, parent) in [(processed, raw), (late, raw2)] {
            #expect(leaves[image.body.entries[0].imageHash]?.parent == parent.body.entries[0].imageHash)
        }
        #expect(leaves[child.body.entries[0].imageHash]?.parent == parent)
        #expect(AggregatorDerivedImageTests.tokenRequests(h) == 4)
        let waits = try await h.pool.query("SELECT count(*) FROM \(unescaped: h.aggregator.schema).provenance_waits")
        #expect(try waits[0].column(0, as: Int.self) == 0)
    }
}
