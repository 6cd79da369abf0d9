import AggregatorCore
import Foundation
import HallmarkClient
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// Submissions refused before the intake sees them (DESIGN §2): answered `rejected` on the
/// result topic when their id reads, and recorded on `hallmark.rejected` by digest and size
/// only, never with the body (a flat bundle holds a device signature).
@Suite("Aggregator refusals", .serialized, .timeLimit(.minutes(5)))
struct AggregatorRefusalTests {
    @Test func aBrokenFlatBundleIsAnsweredAndItsRecordHoldsNoBody() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let (authority, aggregator) = try await h.startBoth()
        defer { [authority, aggregator].forEach { $0.signal(SIGKILL) } }
        let cam = try await h.provisioned("CAM-\(h.id)-refused")

        // Flat bundles whose envelope breaks a rule, each with a device signature, GPS and owner hashes.
        let edits: [(String, (inout [String: Any]) -> Void)] = [
            ("no produced_at", { $0["produced_at"] = nil }),
            ("a bad produced_at", { $0["produced_at"] = "yesterday" }),
            ("no schema", { $0["schema"] = nil }),
            ("a bad correlation_id", { $0["correlation_id"] = "has a space" }),
            ("a bad reply_to", { $0["reply_to"] = "no/slash" }),
        ]
        var sent: [(name: String, id: MessageID, bytes: [UInt8], secrets: [String])] = []
        for (name, edit) in edits {
            let s = try cam.submission(
                .flatBundle, hashes: [.init(imageHash: Hex.encode(try SecureRandom.bytes(32)), modificationLevel: 0)])
            var object = try JSONSerialization.jsonObject(with: Data(try JSONCoding.encode(s))) as! [String: Any]
            object["gps_hash"] = Hex.encode(try SecureRandom.bytes(32))
            object["owner_hash"] = Hex.encode(try SecureRandom.bytes(32))
            edit(&object)
            let bytes = Array(try JSONSerialization.data(withJSONObject: object))
            let secrets = ["device_signature", "gps_hash", "owner_hash"].compactMap { object[$0] as? String }
            #expect(secrets.count == 3)
            sent.append((name, s.id, bytes, secrets))
            try await h.producer.send(topic: h.aggregator.submissionInput, key: Array(s.id.text.utf8), value: bytes)
        }
        for s in sent {
            let answer = await h.watcher.answer(for: s.id, on: h.aggregator.submissionOutput, timeout: .seconds(30))
            let result = try answer.map { try JSONCoding.decode(Message<SubmissionResult>.self, from: $0) }
            #expect(result?.status == .rejected && result?.reason == .malformed, "\(s.name): \(String(describing: result))")
            #expect(result?.requestID == s.id && result?.correlationID == s.id.text, "\(s.name)")
        }
        let records: @Sendable () -> [[String: Any]] = {
            h.watcher.messages(on: h.rejected).compactMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
        }
        let ids = sent.map(\.id.text)
        #expect(
            await h.watcher.wait(timeout: .seconds(30)) { _ in
                Set(records().compactMap { $0["original_id"] as? String }).isSuperset(of: ids)
            })
        let schema = try JSONSchemaValidator.load(RejectedRecord.schemaName)
        for bytes in h.watcher.messages(on: h.rejected) { try schema.validate(bytes: bytes) }
        for s in sent {
            let record = try #require(records().first { $0["original_id"] as? String == s.id.text }, "\(s.name)")
            #expect(record["original_b64"] as? String == "" && record["original_truncated"] as? Bool == true, "\(s.name)")
            #expect(record["original_size"] as? Int == s.bytes.count)
            #expect(record["original_sha256"] as? String == Hex.encode(SHA256Hash.digest(s.bytes)))
        }
        // A body that breaks its schema is answered `malformed` by the intake alone, with nothing of it.
        let extra = try cam.submission(
            .flatBundle, hashes: [.init(imageHash: Hex.encode(try SecureRandom.bytes(32)), modificationLevel: 0)])
        var object = try JSONSerialization.jsonObject(with: Data(try JSONCoding.encode(extra))) as! [String: Any]
        object["extra"] = true
        let bytes = Array(try JSONSerialization.data(withJSONObject: object))
        sent.append(("an unknown member", extra.id, bytes, [object["device_signature"] as! String]))
        try await h.producer.send(topic: h.aggregator.submissionInput, key: Array(extra.id.text.utf8), value: bytes)
        let answer = await h.watcher.answer(for: extra.id, on: h.aggregator.submissionOutput, timeout: .seconds(30))
        #expect(try answer.map { try JSONCoding.decode(Message<SubmissionResult>.self, from: $0) }?.reason == .malformed)
        // Nothing of a body anywhere the aggregator writes.
        let written =
            (h.watcher.messages(on: h.rejected) + h.watcher.messages(on: h.aggregator.submissionOutput)
            + h.watcher.messages(on: h.authority.securityTopic)).map { String(decoding: $0, as: UTF8.self) }
        for s in sent { for secret in s.secrets { #expect(!written.contains { $0.contains(secret) }, "\(s.name)") } }
    }
}
