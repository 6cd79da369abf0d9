import HallmarkKafka
import Testing

@testable import HallmarkRuntime

/// The dispatcher's global bounds: the in-flight count and bytes make `put` wait, and nothing
/// else does; a lone message larger than the byte bound is still let in.
@Suite("StageDispatcher: the global bounds", .timeLimit(.minutes(1)))
struct StageDispatcherBoundsTests {
    typealias F = DispatcherFixture

    /// At `maxInFlight` messages `put` waits, even for an empty slot of an unrelated
    /// partition; one message done lets it in.
    @Test func theCountBoundMakesPutWait() throws {
        let f = F(slots: 4, depth: 10, maxInFlight: 3)
        for slot in 0..<3 { #expect(f.put(F.message(Int32(slot), 0, slot: slot)).returned) }
        let fourth = f.put(F.message(3, 0, slot: 3))
        #expect(!fourth.returned, "a fourth message was let in over maxInFlight 3")
        #expect(f.dispatcher.inFlight == 3)
        let taken = try f.takeNow(slot: 1)
        fourth.advance()
        #expect(!fourth.returned, "taking a message is not finishing it")
        f.dispatcher.done(slot: 1, messages: taken)
        fourth.advance()
        #expect(fourth.returned)
        #expect(f.dispatcher.inFlight == 3)
        #expect(try f.takeNow(slot: 3).positions == [Position(3, 0)])
        #expect(f.flow.isEmpty)
    }

    /// Past `maxBytes` held (a message counts its value, key and 64 bytes) `put` waits until
    /// enough is done.
    @Test func theByteBoundMakesPutWait() throws {
        let f = F(slots: 4, depth: 10, maxBytes: 1_000)
        // 400 + 1 + 64 = 465 bytes each: two fit in 1,000, a third does not.
        #expect(f.put(F.message(0, 0, slot: 0, bytes: 400)).returned)
        #expect(f.put(F.message(1, 0, slot: 1, bytes: 400)).returned)
        let third = f.put(F.message(2, 0, slot: 2, bytes: 400))
        #expect(!third.returned, "1,395 bytes were let in under a 1,000-byte bound")
        // A small one would fit, but it must not overtake: the consumer hands them in order.
        let taken = try f.takeNow(slot: 0)
        f.dispatcher.done(slot: 0, messages: taken)
        third.advance()
        #expect(third.returned)
        #expect(try f.takeNow(slot: 2).positions == [Position(2, 0)])
    }

    /// A message larger than the byte bound is let in when nothing else is held — else it
    /// could never be processed — and then holds the bound alone until it is done.
    @Test func aLoneMessageLargerThanTheByteBoundIsAdmitted() throws {
        let f = F(slots: 2, depth: 10, maxBytes: 100)
        let big = f.put(F.message(0, 0, slot: 0, bytes: 10_000))
        #expect(big.returned, "a lone oversized message waited forever")
        let small = f.put(F.message(1, 0, slot: 1, bytes: 1))
        #expect(!small.returned, "a message was let in beside one over the byte bound")
        let taken = try f.takeNow(slot: 0)
        #expect(taken.positions == [Position(0, 0)])
        f.dispatcher.done(slot: 0, messages: taken)
        small.advance()
        #expect(small.returned)
    }

    /// Only the global bounds make `put` wait: a full slot parks (and pauses) but returns at
    /// once, for as many messages of its partition as arrive, while there is room.
    @Test func aFullSlotNeverMakesPutWait() {
        let f = F(slots: 2, depth: 1, maxInFlight: 100)
        for offset in 0..<50 {
            #expect(f.put(F.message(0, Int64(offset), slot: 0)).returned, "put waited at 0@\(offset)")
        }
        #expect(f.dispatcher.inFlight == 50)
        #expect(f.flow == [.pause([F.partition(0)])])
    }

    /// Issue #10 §1, "one stuck key must never take every permit": a stuck slot holds its own
    /// `depth` messages, and its partition's messages already fetched when it was paused
    /// (the consumer's buffer, up to `2 × maxInFlight` or 64) park behind it. Those parked
    /// messages must not use up the in-flight bound, or the consumer stops for every partition.
    @Test func aStuckSlotsParkedPartitionDoesNotStopOtherPartitions() {
        let f = F(slots: 8, depth: 2, maxInFlight: 4)
        // Slot 0 is stuck (never taken); partition 0 had 8 messages (2 × maxInFlight) fetched
        // before its pause took effect. (One `put` at a time, as the consumer calls it.)
        for offset in 0..<8 {
            let call = f.put(F.message(0, Int64(offset), slot: 0))
            guard call.returned else {
                Issue.record(
                    """
                    put of 0@\(offset) waits: partition 0's parked messages hold \(f.dispatcher.inFlight) of the \
                    4 in-flight permits, so the consumer stops for every partition while slot 0 is stuck
                    """)
                return
            }
        }
        #expect(f.flow == [.pause([F.partition(0)])])
        let other = f.put(F.message(1, 0, slot: 1))
        #expect(other.returned, "partition 1 waits for room held by partition 0's parked messages")
    }
}
