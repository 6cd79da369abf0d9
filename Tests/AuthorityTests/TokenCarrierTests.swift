import AuthorityCore
import Foundation
import HallmarkClient
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// Batch carriers on the authority's hop (DESIGN §2): many token requests in one
/// `hallmark.token.request.batch.v1`, answered by one `hallmark.token.result.batch.v1` whose
/// items are each request's own typed answer; a bad item gets its answer and the others
/// proceed; a redelivered carrier gets its first answers again. Against the real process,
/// broker and PostgreSQL.
@Suite("Authority, batch carriers", .serialized, .timeLimit(.minutes(5)))
struct TokenCarrierTests {
    /// One carrier of every kind of item, then the same carrier again.
    @Test func eachItemGetsItsOwnAnswerAndARedeliveryTheFirstAgain() async throws {
        let h = try await AuthorityHarness()
        let service = try await h.start("a")
        defer { service.signal(SIGKILL) }
        let cam = try await h.provisioned("CAM-\(h.id)-1")
        let spent = try cam.referenceRequest().token
        #expect(try await h.validate(spent).valid)
        var stranger = cam
        stranger.nucHash = Hex.encode(try SecureRandom.bytes(32))
        let good = try Self.object(Message(TokenRequest(token: .reference(try cam.referenceRequest().token))))
        var hashed = good
        hashed["image_hash"] = .string(String(repeating: "a", count: 64))

        let items: [(what: String, members: [String: JSONValue], expected: ValidationReason?)] = [
            ("reference", good, nil),
            ("mobile", try Self.object(Message(TokenRequest(token: .mobile(try cam.mobileToken())), correlationID: "c-2")), nil),
            ("packed", try Self.object(Message(TokenRequest(token: .mobile(try cam.packedToken(used: 1))))), nil),
            ("replayed", try Self.object(Message(TokenRequest(token: .reference(spent)))), .replayedToken),
            ("an image hash beside the token", Self.renewed(hashed), .malformed),
            (
                "unknown device",
                try Self.object(Message(TokenRequest(token: .reference(try stranger.referenceRequest().token)))),
                .token(.unknownDevice)
            ),
        ]
        let carrierID = MessageID.random()
        let carrier = Self.carrier(carrierID, items.map(\.members))
        try await h.producer.send(topic: h.configuration.tokenInput, key: Array("carrier".utf8), value: carrier)
        let first = try await Self.results(h, carrierID)
        #expect(first.items.count == items.count)
        for (item, result) in zip(items, first.items) {
            #expect(result.requestID?.text == item.members["id"]?.string, "\(item.what)")
            #expect(
                result.correlationID == (item.members["correlation_id"]?.string ?? item.members["id"]?.string),
                "\(item.what)")
            #expect(result.reason == item.expected, "\(item.what): \(String(describing: result.reason))")
        }
        #expect(first.requestID == carrierID)

        // The same carrier again: the same answers under the same ids, no replay.
        try await h.producer.send(topic: h.configuration.tokenInput, key: Array("carrier".utf8), value: carrier)
        #expect(try await eventually(timeout: .seconds(60)) { h.watcher.answers(for: carrierID).count >= 2 })
        let again = try JSONDecoder().decode(
            Message<TokenResultBatch>.self, from: Data(try #require(h.watcher.answers(for: carrierID).last)))
        #expect(again.id == first.id)
        #expect(again.items.map(\.id) == first.items.map(\.id))
        #expect(again.items.map(\.reason) == first.items.map(\.reason))
    }

    /// A carrier that breaks its own schema (an item without `produced_at`): its rejected
    /// record, and each item whose id can be read answered FAIL `malformed`.
    @Test func aBrokenCarrierAnswersEveryReadableItem() async throws {
        let h = try await AuthorityHarness()
        let service = try await h.start("a")
        defer { service.signal(SIGKILL) }
        let cam = try await h.provisioned("CAM-\(h.id)-1")
        let good = try Self.object(Message(TokenRequest(token: .reference(try cam.referenceRequest().token))))
        var undated = try Self.object(Message(TokenRequest(token: .mobile(try cam.mobileToken()))))
        undated["produced_at"] = nil
        let carrierID = MessageID.random()
        let carrier = Self.carrier(carrierID, [good, undated, ["no": .string("id")]])
        try await h.producer.send(topic: h.configuration.tokenInput, key: Array("carrier".utf8), value: carrier)
        let results = try await Self.results(h, carrierID)
        #expect(results.items.map(\.requestID?.text) == [good["id"]?.string, undated["id"]?.string])
        #expect(results.items.allSatisfy { $0.reason == .malformed })
        #expect(await h.waitForRejection(of: carrierID)?["reason"] as? String == "schema_violation")
    }

    /// A carrier the runtime refuses (here: over the authority's size limit) is answered FAIL
    /// `malformed` under its own id, as a single request would be, and none of its items is:
    /// they were not judged, and the aggregator resends each alone.
    @Test func aRefusedCarrierIsAnsweredUnderItsOwnIdAndItsItemsAreNot() async throws {
        let h = try await AuthorityHarness()
        let service = try await h.start("a", ["HALLMARK_MAX_MESSAGE_BYTES": "16384"])
        defer { service.signal(SIGKILL) }
        let cam = try await h.provisioned("CAM-\(h.id)-1")
        let items = try (0..<100).map { _ in
            try Self.object(Message(TokenRequest(token: .mobile(try cam.mobileToken()))))
        }
        let carrierID = MessageID.random()
        let carrier = Self.carrier(carrierID, items)
        #expect(carrier.count > 16384)
        try await h.producer.send(topic: h.configuration.tokenInput, key: Array("carrier".utf8), value: carrier)
        let bytes = try #require(await h.watcher.answer(for: carrierID, on: h.configuration.tokenOutput, timeout: .seconds(60)))
        let answer = try JSONDecoder().decode(Message<TokenResult>.self, from: Data(bytes))
        #expect(answer.reason == .malformed)
        #expect(await h.waitForRejection(of: carrierID)?["reason"] as? String == "oversized")
        // A single request after it, on the same key, is answered after it.
        #expect(try await h.validate(try cam.referenceRequest().token, key: "carrier").valid)
        #expect(items.allSatisfy { h.watcher.answers(for: $0["id"]?.string ?? "").isEmpty })
    }

    /// A request carrier's bytes, its items as given (written by hand, so they may break the
    /// carrier's schema).
    static func carrier(_ id: MessageID, _ items: [[String: JSONValue]]) -> [UInt8] {
        JSONWriter.write(
            .object([
                "schema": .string(TokenRequestBatch.schemaName), "id": .string(id.text),
                "produced_at": .string(Timestamp.now().text), "items": .array(items.map { .object($0) }),
            ]))
    }

    static func object(_ message: Message<TokenRequest>) throws -> [String: JSONValue] {
        try #require(try JSONReader.parse(try JSONCoding.encode(message)).object)
    }

    /// The same members under a new id.
    static func renewed(_ members: [String: JSONValue]) -> [String: JSONValue] {
        var out = members
        out["id"] = .string(MessageID.random().text)
        return out
    }

    static func results(_ h: AuthorityHarness, _ carrier: MessageID) async throws -> Message<TokenResultBatch> {
        let bytes = try #require(await h.watcher.answer(for: carrier, on: h.configuration.tokenOutput, timeout: .seconds(60)))
        return try JSONDecoder().decode(Message<TokenResultBatch>.self, from: Data(bytes))
    }
}
