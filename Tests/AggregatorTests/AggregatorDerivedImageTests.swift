import AggregatorCore
import Foundation
import HallmarkClient
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// DESIGN §2: derived images share their capture's token. The reference Raspberry Pi sends its
/// raw bundle, then the processed one (level 1, parent = the raw hash) with the same token;
/// the processed one is accepted, under the raw one's outcome, and any other reuse of the
/// token is not.
@Suite("Aggregator derived images", .serialized, .timeLimit(.minutes(10)))
struct AggregatorDerivedImageTests {
    typealias Entry = Submission.ImageHash

    static func hash() -> String { Hex.encode(try! SecureRandom.bytes(32)) }

    /// The bundle of an image made from `parent`: the same token and timestamp, a new id, one
    /// hash at `level` whose parent is `parent` (by default the raw bundle's hash).
    static func derived(
        _ raw: Message<Submission>, level: Int = 1, parent: String? = nil, hash: String = hash()
    ) -> Message<Submission> {
        var m = raw
        m.header.id = .random()
        let entry = Entry(imageHash: hash, modificationLevel: level, parentImageHash: parent ?? raw.body.entries[0].imageHash)
        if m.body.imageHash != nil {
            (m.body.imageHash, m.body.modificationLevel, m.body.parentImageHash) = (hash, level, entry.parentImageHash)
        } else {
            m.body.imageHashes = [entry]
        }
        return m
    }

    /// The log's leaves: level and parent by image hash.
    static func leaves(_ h: AggregatorHarness) async throws -> [String: (level: Int16, parent: String?)] {
        let rows = try await h.pool.query(
            """
            SELECT encode(image_hash, 'hex'), modification_level, encode(parent_hash, 'hex')
            FROM \(unescaped: h.aggregator.schema).leaves
            """
        ).decode((String, Int16, String?).self)
        return Dictionary(rows.map { ($0.0, (level: $0.1, parent: $0.2)) }) { first, _ in first }
    }

    /// The distinct token requests the authority was sent.
    static func tokenRequests(_ h: AggregatorHarness) -> Int {
        Set(h.watcher.messages(on: h.authority.tokenInput).flatMap(CarriedUnits.of).compactMap { $0["id"]?.string }).count
    }

    /// 1,000 captures in every body, each raw bundle and its processed bundle sent back to
    /// back: all 2,000 accepted, each processed hash logged under its raw parent, the
    /// authority asked once per capture. Then 1,000 with the order swapped: the processed one
    /// read first has a parent neither under its token nor in the log yet, so it waits for it
    /// (DESIGN §2, ``ParentWaits``) and is accepted under the raw one's token, never asked about.
    @Test func processedBundlesShareTheirRawBundlesToken() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let (authority, aggregator) = try await h.startBoth()
        defer { [authority, aggregator].forEach { $0.signal(SIGKILL) } }
        let cam = try await h.provisioned("CAM-\(h.id)-pairs")
        let bodies = ProvisioningFile.SubmissionBody.allCases
        var pairs: [(raw: Message<Submission>, processed: Message<Submission>)] = []
        for i in 0..<1_000 {
            let raw = try cam.submission(bodies[i % bodies.count], hashes: [Entry(imageHash: Self.hash(), modificationLevel: 0)])
            pairs.append((raw, Self.derived(raw)))
        }
        try await h.send(pairs.flatMap { [$0.raw, $0.processed] }, byCapture: true)
        let answers = await h.answers(pairs.flatMap { [$0.raw.id, $0.processed.id] }, timeout: .seconds(300))
        #expect(answers.count == 2_000)
        let refused = answers.values.compactMap { $0.status == .accepted ? nil : $0.reason?.rawValue ?? "?" }
        #expect(refused.count == 0, "\(refused.prefix(5))")
        var leaves = try await Self.leaves(h)
        let misplaced = pairs.filter { raw, processed in
            let (rawHash, processedHash) = (raw.body.entries[0].imageHash, processed.body.entries[0].imageHash)
            return leaves[rawHash]?.level != 0 || leaves[processedHash]?.level != 1 || leaves[processedHash]?.parent != rawHash
        }
        #expect(misplaced.count == 0)
        #expect(Self.tokenRequests(h) == 1_000)

        // Swapped: the processed bundle first.
        var swapped: [(raw: Message<Submission>, processed: Message<Submission>)] = []
        for i in 0..<1_000 {
            let raw = try cam.submission(bodies[i % bodies.count], hashes: [Entry(imageHash: Self.hash(), modificationLevel: 0)])
            swapped.append((raw, Self.derived(raw)))
        }
        try await h.send(swapped.flatMap { [$0.processed, $0.raw] }, byCapture: true)
        let first = await h.answers(swapped.flatMap { [$0.raw.id, $0.processed.id] }, timeout: .seconds(300))
        #expect(swapped.filter { first[$0.raw.id]?.status != .accepted }.count == 0)
        #expect(
            swapped.filter { first[$0.processed.id]?.status != .accepted }.count == 0,
            "\(first.values.compactMap(\.reason).prefix(5))")
        leaves = try await Self.leaves(h)
        let unparented = swapped.filter {
            leaves[$0.processed.body.entries[0].imageHash]?.parent != $0.raw.body.entries[0].imageHash
        }
        #expect(unparented.count == 0)
        // One question per capture, none for a processed bundle.
        #expect(Self.tokenRequests(h) == 2_000)
    }

    /// What a capture's token carries and what it does not, one bundle at a time.
    @Test func aCaptureTokenCarriesOnlyItsOwnDerivedImages() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let (authority, aggregator) = try await h.startBoth(AggregatorProvenanceTests.window)
        defer { [authority, aggregator].forEach { $0.signal(SIGKILL) } }
        let cam = try await h.provisioned("CAM-\(h.id)-token")

        // After the raw bundle's answer: the processed image, then an edit of it (level 2).
        let raw = try cam.submission(.flatBundle, hashes: [Entry(imageHash: Self.hash(), modificationLevel: 0)])
        #expect(try await h.submit(raw).status == .accepted)
        let processed = Self.derived(raw)
        #expect(try await h.submit(processed).status == .accepted)
        let edit = Self.derived(raw, level: 2, parent: processed.body.entries[0].imageHash)
        #expect(try await h.submit(edit).status == .accepted)
        // The processed bundle sent again (same id, same bytes): the same answer, nothing new.
        try await h.send([processed])
        #expect(await h.watcher.wait(timeout: .seconds(30)) { _ in h.resultBytes(processed.id).count == 2 })
        #expect(Set(h.resultBytes(processed.id)).count == 1)

        // Any other use of the token (another raw image, an image derived from another
        // capture's logged hash): the authority says replayed.
        let other = try cam.submission(.reference, hashes: [Entry(imageHash: Self.hash(), modificationLevel: 0)])
        #expect(try await h.submit(other).status == .accepted)
        var anotherRaw = Self.derived(raw, level: 0)
        anotherRaw.body.parentImageHash = nil
        #expect(try await h.submit(anotherRaw).reason == .replayedToken)
        let fromOther = Self.derived(raw, parent: other.body.entries[0].imageHash)
        #expect(try await h.submit(fromOther).reason == .replayedToken)
        // Neither derived nor with its parent in the log: a parent of no lower level (at once),
        // an unknown parent (once the window is over).
        #expect(try await h.submit(Self.derived(raw, parent: edit.body.entries[0].imageHash)).reason == .invalidProvenance)
        #expect(try await h.submit(Self.derived(raw, parent: Self.hash())).reason == .invalidProvenance)

        // A refused capture: its processed image sent back to back, and sent after the answer,
        // gets the same reason.
        var tampered = try cam.submission(.reference, hashes: [Entry(imageHash: Self.hash(), modificationLevel: 0)])
        tampered.body.cameraToken!.authTag = String(tampered.body.cameraToken!.authTag.reversed())
        let follower = Self.derived(tampered)
        try await h.send([tampered, follower], byCapture: true)
        let refused = await h.answers([tampered.id, follower.id])
        #expect(refused[tampered.id]?.reason == .authenticationFailed)
        #expect(refused[follower.id]?.reason == .authenticationFailed)
        #expect(try await h.submit(Self.derived(tampered)).reason == .authenticationFailed)

        // Only accepted hashes were logged.
        let leaves = try await Self.leaves(h)
        let logged = [raw, processed, edit, other].map { $0.body.entries[0].imageHash }
        #expect(Set(leaves.keys) == Set(logged))
        #expect(leaves[edit.body.entries[0].imageHash]?.parent == processed.body.entries[0].imageHash)
    }
}
