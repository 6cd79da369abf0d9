import Foundation
import HallmarkKafka
import HallmarkTestSupport
import Testing

@testable import HallmarkRuntime

/// The byte form of an inbox record's outputs: what is written reads back exactly, and
/// anything else — cut short, extended, another version, lengths or markers out of range,
/// random bytes — reads as nil (nothing to re-send), never as different outputs or a crash.
@Suite("OutboxCodec", .timeLimit(.minutes(1)))
struct OutboxCodecTests {
    static let samples: [[StageOutput]] = [
        [],
        [StageOutput(topic: "t", key: nil, value: [])],
        [
            StageOutput(topic: "hallmark.sign.results", key: Array("partner-7".utf8), value: Array(#"{"a":1}"#.utf8)),
            StageOutput(topic: "hallmark.rejected", key: [], value: [0, 1, 2, 255], partition: 0),
            StageOutput(topic: "é.topic", key: [0xFF, 0x00], value: [UInt8](repeating: 0x41, count: 70_000), partition: 7),
        ],
    ]

    static func same(_ a: [StageOutput], _ b: [StageOutput]) -> Bool {
        a.count == b.count
            && zip(a, b).allSatisfy {
                $0.topic == $1.topic && $0.key == $1.key && $0.value == $1.value && $0.partition == $1.partition
            }
    }

    @Test(arguments: samples.indices)
    func roundTrips(_ index: Int) throws {
        let outputs = Self.samples[index]
        let decoded = try #require(OutboxCodec.decode(OutboxCodec.encode(outputs)))
        #expect(Self.same(decoded, outputs))
    }

    /// Every strict prefix of a valid record, and the record with a byte appended, is refused.
    @Test func refusesTruncatedAndExtendedRecords() {
        let bytes = OutboxCodec.encode(
            Self.samples[2].map {
                var o = $0; o.value = Array(o.value.prefix(40)); return o
            })
        #expect(OutboxCodec.decode(bytes) != nil)
        for length in 0..<bytes.count {
            #expect(OutboxCodec.decode(bytes.prefix(length)) == nil, "a record cut to \(length) of \(bytes.count) bytes was read")
        }
        #expect(OutboxCodec.decode(bytes + [0]) == nil)
    }

    /// Hand-made records: another version, a count or length past the end, a key length or
    /// partition below the -1 that marks "none", a topic that is not UTF-8.
    @Test(
        arguments: [
            ("version 2", [2, 0, 0, 0, 0]),
            ("version 0", [0, 0, 0, 0, 0]),
            ("one output, none written", [1, 0, 0, 0, 1]),
            ("count 2^32-1", [1, 255, 255, 255, 255]),
            ("topic length past the end", [1, 0, 0, 0, 1, 255, 255, 255, 255, 0x74]),
            ("key length -2", [1, 0, 0, 0, 1, 0, 0, 0, 1, 0x74, 255, 255, 255, 255, 255, 255, 255, 254, 0, 0, 0, 0]),
            ("partition -2", [1, 0, 0, 0, 1, 0, 0, 0, 1, 0x74, 255, 255, 255, 254, 255, 255, 255, 255, 0, 0, 0, 0]),
            ("topic not UTF-8", [1, 0, 0, 0, 1, 0, 0, 0, 1, 0xC3, 255, 255, 255, 255, 255, 255, 255, 255, 0, 0, 0, 0]),
            (
                "value length past the end",
                [1, 0, 0, 0, 1, 0, 0, 0, 1, 0x74, 255, 255, 255, 255, 255, 255, 255, 255, 0, 0, 0, 9, 1]
            ),
        ] as [(String, [UInt8])])
    func refusesMalformedRecords(_ name: String, _ bytes: [UInt8]) {
        #expect(OutboxCodec.decode(Data(bytes)) == nil, "\(name) was read")
    }

    /// The hand-made records above differ from a valid one only where they say: this one,
    /// built the same way, reads as topic `t`, no key, no partition, an empty value.
    @Test func theHandMadeBaseIsValid() throws {
        let base: [UInt8] = [1, 0, 0, 0, 1, 0, 0, 0, 1, 0x74, 255, 255, 255, 255, 255, 255, 255, 255, 0, 0, 0, 0]
        let outputs = try #require(OutboxCodec.decode(Data(base)))
        #expect(Self.same(outputs, [StageOutput(topic: "t", key: nil, value: [])]))
    }

    /// Random bytes after a valid version byte never read as outputs (seeded, so it repeats).
    @Test func refusesRandomBytes() {
        var rng = SplitMix64(seed: 0xB0C5)
        for _ in 0..<2_000 {
            let length = Int.random(in: 1...64, using: &rng)
            let bytes = [1] + (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            #expect(OutboxCodec.decode(Data(bytes)) == nil, "\(bytes) was read")
        }
    }
}
