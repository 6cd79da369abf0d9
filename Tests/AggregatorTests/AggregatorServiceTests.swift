import AggregatorCore
import Foundation
import HallmarkClient
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// The aggregator as its own process with a real authority, broker and database.
@Suite("Aggregator end to end", .serialized, .timeLimit(.minutes(12)))
struct AggregatorServiceTests {
    static func hash() -> String { Hex.encode(try! SecureRandom.bytes(32)) }

    /// Many submissions from provisioned cameras in every body and token format: each is
    /// accepted, every hash's inclusion proof checks against the final checkpoint with only the
    /// public key, consecutive checkpoints are proven consistent, and the log holds each hash
    /// once at gap-free positions. The bytes on the token topics prove the privacy split.
    @Test func manySubmissionsAreLoggedProvablyAndPrivately() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let (authority, aggregator) = try await h.startBoth()
        defer { [authority, aggregator].forEach { $0.signal(SIGKILL) } }
        let cameras = [try await h.provisioned("CAM-\(h.id)-1"), try await h.provisioned("CAM-\(h.id)-2")]
        let total = Int(ProcessInfo.processInfo.environment["HALLMARK_TEST_AGGREGATOR_SUBMISSIONS"] ?? "") ?? 10_000
        let bodies = ProvisioningFile.SubmissionBody.allCases
        var submissions: [Message<Submission>] = []
        var gps: [String] = []
        for i in 0..<total {
            let body = bodies[i % bodies.count]
            // A raw hash and up to two derived ones, each naming the one before (provenance).
            var hashes: [Submission.ImageHash] = []
            for level in 0..<(body == .flatBundle ? 1 : 1 + i % 3) {
                hashes.append(.init(imageHash: Self.hash(), modificationLevel: level, parentImageHash: hashes.last?.imageHash))
            }
            var s = try cameras[i % 2].submission(body, hashes: hashes, authorityID: h.aggregator.authorityID)
            if body == .reference { s.gpsHash = Self.hash(); gps.append(s.gpsHash!) }
            submissions.append(s)
        }
        for chunk in stride(from: 0, to: total, by: 500) {
            try await h.send(Array(submissions[chunk..<min(total, chunk + 500)]))
        }
        let answers = await h.answers(submissions.map(\.id), timeout: .seconds(400))
        #expect(answers.count == total)
        let notAccepted = answers.values.filter { $0.status != .accepted }
        #expect(notAccepted.isEmpty, "\(notAccepted.prefix(5).map { "\($0.status) \($0.reason?.rawValue ?? "")" })")
        let hashes = submissions.flatMap { $0.entries.map(\.imageHash) }

        // The log: every hash once, at positions 0..<n, as the answers said.
        let stored = try await h.storedLeaves()
        #expect(stored.map(\.0) == Array(0..<Int64(hashes.count)))
        #expect(Set(stored.map(\.1)) == Set(hashes))
        let indexOf = Dictionary(uniqueKeysWithValues: stored.map { ($0.1, UInt64($0.0)) })
        let misplaced = submissions.filter {
            answers[$0.id]?.leaves?.map(\.leafIndex) != $0.entries.map { indexOf[$0.imageHash] }
        }
        #expect(misplaced.isEmpty, "\(misplaced.count) answers name other leaves than the log holds")

        // Every proof, checked offline with only the public key, against one final checkpoint.
        let final = try #require(h.checkpoints().values.max { $0.treeSize < $1.treeSize })
        #expect(final.treeSize == UInt64(hashes.count))
        let requests = hashes.map { Message(LogVerifyRequest(imageHash: $0)) }
        for chunk in stride(from: 0, to: requests.count, by: 500) {
            try await h.producer.send(
                requests[chunk..<min(requests.count, chunk + 500)].map {
                    .init(topic: h.aggregator.verifyInput, key: nil, value: try JSONCoding.encode($0))
                })
        }
        _ = await h.watcher.wait(timeout: .seconds(300)) { w in requests.allSatisfy { !w.answers(for: $0.id).isEmpty } }
        var verified = 0
        for request in requests {
            guard let bytes = h.watcher.answers(for: request.id).first,
                let answer = try? JSONCoding.decode(Message<LogVerifyResult>.self, from: bytes)
            else { continue }
            if answer.status == .found, answer.checkpoint == final.signed,
                case .success = answer.body.check(publicKey: h.signingKey.publicKey, imageHash: request.imageHash)
            {
                verified += 1
            }
        }
        #expect(verified == hashes.count)

        // Consecutive checkpoints, each signed, each proven an extension of the one before.
        let sizes = h.checkpoints().keys.sorted()
        #expect(sizes.count >= 2)
        for (old, new) in zip(sizes, sizes.dropFirst()) {
            let earlier = h.checkpoints()[old]!.signed
            let proof = try await h.ask(
                Message(LogVerifyRequest(oldTreeSize: old, newTreeSize: new)))
            #expect(proof.status == .consistent && proof.checkpoint == h.checkpoints()[new]!.signed)
            #expect((try? proof.body.check(publicKey: h.signingKey.publicKey, earlier: earlier).get()) != nil, "\(old) → \(new)")
        }

        // The privacy split, from the bytes on the topics: the authority's input holds no image
        // hash and no GPS hash; nothing the aggregator receives from it names a device.
        // Token requests travel in batch carriers (DESIGN §2): the carrier's envelope and each
        // item are held to the same rule.
        let tokenRequests = h.watcher.messages(on: h.authority.tokenInput)
        #expect(tokenRequests.flatMap(CarriedUnits.of).count >= total)
        let allowed: Set<String> = [
            "schema", "id", "produced_at", "correlation_id", "reply_to", "camera_token",
            "encrypted_nuc_token", "table_references", "key_indices",
        ]
        let secrets = Set(hashes + gps)
        var leaking = 0, extraFields = 0
        for bytes in tokenRequests {
            let units = CarriedUnits.of(bytes)
            #expect(!units.isEmpty)
            if !CarriedUnits.envelope(bytes).isSubset(of: allowed) { extraFields += 1 }
            extraFields += units.filter { !Set($0.keys).isSubset(of: allowed) }.count
            if !Self.hexWindows(bytes).isDisjoint(with: secrets) { leaking += 1 }
        }
        #expect(extraFields == 0 && leaking == 0, "\(extraFields) token requests with other fields, \(leaking) holding a hash")
        let device = Set(cameras.flatMap { [$0.deviceSerial, $0.nucHash] })
        let tokenResults = h.watcher.messages(on: h.authority.tokenOutput)
        #expect(tokenResults.flatMap(CarriedUnits.of).count >= total)
        let naming = tokenResults.filter { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            return device.contains { text.contains($0) } || !Self.hexWindows(bytes).isDisjoint(with: device)
        }
        #expect(naming.isEmpty, "\(naming.count) token results name a device")
        #expect(aggregator.logCount("processing failed; retrying") == 0)
    }

    /// Every 64-character window of every run of hex digits in `bytes`, lower-cased: any
    /// SHA-256 written in hex anywhere in a message is one of them.
    static func hexWindows(_ bytes: [UInt8]) -> Set<String> {
        var out = Set<String>(), run: [UInt8] = []
        func flush() {
            if run.count >= 64 {
                for start in 0...(run.count - 64) { out.insert(String(decoding: run[start..<start + 64], as: UTF8.self)) }
            }
            run.removeAll(keepingCapacity: true)
        }
        for b in bytes {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): run.append(b)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): run.append(b | 0x20)
            default: flush()
            }
        }
        flush()
        return out
    }

    /// The authority's FAIL reasons reach the camera; a hash already logged is `duplicate`
    /// with its leaf index; a repeated submission id gets the same answer; another authority
    /// is refused; the same hash twice in one bundle takes one leaf.
    @Test func everyVerdict() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let (authority, aggregator) = try await h.startBoth()
        defer { [authority, aggregator].forEach { $0.signal(SIGKILL) } }
        let cam = try await h.provisioned("CAM-\(h.id)-1")
        let stolen = try await h.provisioned("CAM-\(h.id)-2")
        let authorityID = h.aggregator.authorityID
        let one = { [Submission.ImageHash(imageHash: Self.hash(), modificationLevel: 0)] }

        let first = try cam.submission(.packed, hashes: one())
        let accepted = try await h.submit(first)
        #expect(accepted.status == .accepted && accepted.leaves?.first?.status == .appended)
        let leaf = try #require(accepted.leaves?.first?.leafIndex)

        // The same hash from another submission (and format): duplicate, same leaf.
        let again = try await h.submit(try cam.submission(.cameraSubmission, hashes: first.entries, authorityID: authorityID))
        #expect(again.status == .duplicate && again.leaves?.first?.leafIndex == leaf && again.leaves?.first?.status == .duplicate)
        // A bundle holding a new raw hash, a derived one twice and a logged one (derived, as far as
        // this bundle says): accepted, two new leaves.
        let (fresh, derived) = (Self.hash(), Self.hash())
        let mixed = try await h.submit(
            try cam.submission(
                .mobile,
                hashes: [
                    .init(imageHash: fresh, modificationLevel: 0),
                    .init(imageHash: derived, modificationLevel: 1, parentImageHash: fresh),
                    .init(imageHash: derived, modificationLevel: 1, parentImageHash: fresh),
                    .init(imageHash: first.entries[0].imageHash, modificationLevel: 1, parentImageHash: fresh),
                ]))
        #expect(mixed.status == .accepted)
        #expect(mixed.leaves?.map(\.status) == [.appended, .appended, .duplicate, .duplicate])
        #expect(mixed.leaves?[1].leafIndex == mixed.leaves?[2].leafIndex && mixed.leaves?[3].leafIndex == leaf)

        // The same submission id again: the same answer, byte for byte; no second request.
        try await h.send([first])
        #expect(await h.watcher.wait(timeout: .seconds(30)) { $0.answers(for: first.id).count == 2 })
        #expect(Set(h.watcher.answers(for: first.id)).count == 1)

        // Tokens the authority fails, with its reason.
        var tampered = try cam.submission(.reference, hashes: one())
        let tag = tampered.cameraToken!.authTag
        tampered.cameraToken!.authTag = String(tag.reversed())
        #expect(try await h.submit(tampered).reason == .authenticationFailed)
        var stranger = cam
        stranger.nucHash = Self.hash()
        #expect(try await h.submit(try stranger.submission(.flatBundle, hashes: one())).reason == .unknownDevice)
        #expect(try await h.submit(try stranger.submission(.mobile, hashes: one())).reason == .unknownDevice)
        var replay = try cam.submission(.reference, hashes: one())
        let replayed = replay.entries[0].imageHash
        #expect(try await h.submit(replay).status == .accepted)
        replay.header.id = MessageID.random()
        replay.imageHashes = one()
        #expect(try await h.submit(replay).reason == .replayedToken)
        try await h.sendAdmin(
            Message(AdminCommand(command: .blacklist, deviceSerial: stolen.deviceSerial, reason: "stolen")))
        // Within the device cache's TTL the old state may still pass (and log) a bundle.
        var passedBeforeBlacklist: [String] = []
        #expect(
            try await eventually(timeout: .seconds(20)) {
                let s = try stolen.submission(.packed, hashes: one())
                let answer = try await h.submit(s)
                if answer.status == .accepted { passedBeforeBlacklist.append(s.entries[0].imageHash) }
                return answer.reason == .blacklisted
            })
        let foreign = try await h.submit(try cam.submission(.cameraSubmission, hashes: one(), authorityID: "SOMEONE_ELSE"))
        #expect(foreign.status == .rejected && foreign.reason == .unknownAuthority)

        // Nothing rejected was logged: the log holds exactly the accepted hashes.
        let stored = Set(try await h.storedLeaves().map(\.1))
        #expect(stored == Set([first.entries[0].imageHash, fresh, derived, replayed] + passedBeforeBlacklist))
        // not_found, and questions that cannot be answered.
        let missing = try await h.ask(
            Message(LogVerifyRequest(imageHash: Self.hash())))
        #expect(missing.status == .notFound && missing.body.check(publicKey: h.signingKey.publicKey).isSuccess)
        let unknown = try await h.ask(
            Message(LogVerifyRequest(oldTreeSize: 1, newTreeSize: 999_999)))
        #expect(unknown.status == .rejected && unknown.reason == .unknownTreeSize)
        let backwards = try await h.ask(
            Message(LogVerifyRequest(oldTreeSize: 3, newTreeSize: 1)))
        #expect(backwards.reason == .malformed)
        // Every message the aggregator produced meets its JSON Schema.
        let produced = [
            h.aggregator.submissionOutput, h.aggregator.verifyOutput, h.aggregator.checkpoints, h.authority.tokenInput,
        ]
        var checked = 0
        for (_, bytes) in h.watcher.outputs(on: produced) {
            let object = try JSONSerialization.jsonObject(with: Data(bytes))
            let schema = try #require((object as? [String: Any])?["schema"] as? String)
            try SchemaCheck.validate(object, against: schema)
            checked += 1
        }
        #expect(checked > 20)
        #expect(aggregator.logCount("processing failed; retrying") == 0)
    }
}

extension Result {
    var isSuccess: Bool { if case .success = self { true } else { false } }
}
