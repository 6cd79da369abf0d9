import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
@testable import HallmarkRuntime
import Testing

/// DESIGN §2's ids, as the inbox judges a second message with a recorded id: the same record is
/// a redelivery, the same message published again is resent, anything else is `id_reused`; and
/// what "the same message" means (`StageMessage.contentDigest`).
@Suite("Inbox sightings", .timeLimit(.minutes(1)))
struct InboxSightingTests {
    static let id = "80886D7F-5BCA-4827-81DC-D7FFB6239CFF"

    static func message(_ text: String, topic: String = "t", partition: Int32 = 0, offset: Int64 = 7) throws -> StageMessage {
        let bytes = Array(text.utf8)
        let (header, fields) = try EnvelopeHeader.read(bytes)
        return StageMessage(
            header: header,
            kafka: KafkaMessage(
                topic: topic, partition: partition, offset: offset, key: nil,
                value: bytes), fields: fields)
    }

    static func record(of message: StageMessage) -> Inbox.Record {
        Inbox.Record(
            topic: message.kafka.topic, digest: message.contentDigest, partition: message.kafka.partition,
            offset: message.kafka.offset, outputs: [])
    }

    static let first = #"{"schema":"s.v1","id":"\#(id)","produced_at":"2025-01-01T00:00:00.000Z","n":1}"#

    @Test func theSameRecordIsARedeliveryAndTheSameMessageElsewhereIsResent() throws {
        let m = try Self.message(Self.first)
        #expect(Inbox.sighting(of: m, against: Self.record(of: m)) == .redelivery)
        // Published again: another offset, or another partition.
        #expect(Inbox.sighting(of: try Self.message(Self.first, offset: 8), against: Self.record(of: m)) == .resent)
        #expect(Inbox.sighting(of: try Self.message(Self.first, partition: 1), against: Self.record(of: m)) == .resent)
        // Made again at another time, with its members in another order and spaced: the same message.
        let again = #"{ "n": 1, "id": "\#(Self.id)", "produced_at": "2025-06-01T00:00:00Z", "schema": "s.v1" }"#
        #expect(try Self.message(again).contentDigest == m.contentDigest)
        #expect(Inbox.sighting(of: try Self.message(again, offset: 9), against: Self.record(of: m)) == .resent)
    }

    @Test func otherContentOrAnotherTopicIsReused() throws {
        let m = try Self.message(Self.first)
        let other = #"{"schema":"s.v1","id":"\#(Self.id)","produced_at":"2025-01-01T00:00:00.000Z","n":2}"#
        #expect(Inbox.sighting(of: try Self.message(other, offset: 8), against: Self.record(of: m)) == .reused(otherTopic: false))
        // Even at the same place (a topic recreated): other content is never a redelivery.
        #expect(Inbox.sighting(of: try Self.message(other), against: Self.record(of: m)) == .reused(otherTopic: false))
        #expect(
            Inbox.sighting(of: try Self.message(Self.first, topic: "u"), against: Self.record(of: m)) == .reused(otherTopic: true)
        )
        // A correlation id added, or the id's case changed, is other content.
        let correlated =
            #"{"schema":"s.v1","id":"\#(Self.id)","produced_at":"2025-01-01T00:00:00.000Z","n":1,"correlation_id":"c"}"#
        #expect(try Self.message(correlated).contentDigest != m.contentDigest)
        #expect(
            try Self.message(Self.first.replacingOccurrences(of: Self.id, with: Self.id.lowercased())).contentDigest
                != m.contentDigest)
    }

    @Test func recordsWithoutASourceOrDigestAreTakenForRedeliveries() throws {
        let legacy = Inbox.Record(topic: "t", digest: nil, partition: nil, offset: nil, outputs: nil)
        #expect(Inbox.sighting(of: try Self.message(Self.first, offset: 99), against: legacy) == .redelivery)
        #expect(Inbox.sighting(of: try Self.message(Self.first, topic: "u"), against: legacy) == .reused(otherTopic: true))
    }
}
