import HallmarkKafka
import Testing

@testable import HallmarkRuntime

/// The dispatcher's flow control without a broker: per-slot order, parking a full slot's
/// partition (paused once, resumed once), other partitions flowing meanwhile, and dropping
/// parked messages of revoked partitions. Every wait is observed by running the call on a
/// ``ManualExecutor`` until it can go no further — never by sleeping.
@Suite("StageDispatcher: slots, parking, pause and resume", .timeLimit(.minutes(1)))
struct StageDispatcherTests {
    typealias F = DispatcherFixture

    /// Each slot hands out its messages in the order they were put, in batches of at most
    /// the taker's limit, whatever the interleaving of slots and partitions.
    @Test func eachSlotKeepsItsOrder() throws {
        let f = F(slots: 3, depth: 100)
        var expected: [[Position]] = [[], [], []]
        var next: [Int32: Int64] = [:]
        for i in 0..<60 {
            let partition = Int32(i * 7 % 4), slot = i * 5 % 3
            let offset = next[partition, default: 0]
            next[partition] = offset + 1
            #expect(f.put(F.message(partition, offset, slot: slot)).returned)
            expected[slot].append(Position(partition, offset))
        }
        #expect(f.dispatcher.inFlight == 60)
        for slot in 0..<3 {
            var got: [Position] = []
            while got.count < expected[slot].count {
                let batch = try f.takeNow(slot: slot, limit: 3)
                #expect((1...3).contains(batch.count))
                got += batch.positions
                f.dispatcher.done(slot: slot, messages: batch)
            }
            #expect(got == expected[slot], "slot \(slot)")
        }
        #expect(f.dispatcher.inFlight == 0)
        #expect(f.flow.isEmpty, "nothing was full, yet: \(f.flow)")
    }

    /// What a lingering batch worker adds to its batch: what its slot holds now, in order, up
    /// to the room left, never another slot's, and nothing (without waiting) when it is empty.
    @Test func takeReadyHandsOutWhatIsThereWithoutWaiting() throws {
        let f = F(slots: 2, depth: 100)
        #expect(f.put(F.message(0, 0, slot: 0)).returned)
        let first = try f.takeNow(slot: 0, limit: 10)
        #expect(first.positions == [Position(0, 0)])
        #expect(f.dispatcher.takeReady(slot: 0, limit: 9).isEmpty)
        for offset in 1...5 { #expect(f.put(F.message(0, Int64(offset), slot: 0)).returned) }
        #expect(f.put(F.message(1, 0, slot: 1)).returned)
        let more = f.dispatcher.takeReady(slot: 0, limit: 3)
        #expect(more.positions == [Position(0, 1), Position(0, 2), Position(0, 3)])
        #expect(f.dispatcher.takeReady(slot: 0, limit: 0).isEmpty)
        #expect(f.dispatcher.takeReady(slot: 0, limit: 9).positions == [Position(0, 4), Position(0, 5)])
        #expect(try f.takeNow(slot: 1, limit: 9).positions == [Position(1, 0)])
        f.dispatcher.done(slot: 0, messages: first + more)
        #expect(f.dispatcher.inFlight == 3)
    }

    /// A message whose slot is full is parked and its partition paused — once, however many
    /// of its messages park after it, and even when a later one's own slot has room (the
    /// partition's order holds). Messages of other partitions keep flowing meanwhile. As the
    /// slot drains, parked messages move in, in order, and the partition is resumed once its
    /// parked queue is empty — not before.
    @Test func aFullSlotParksItsPartitionWhileOthersFlow() throws {
        let f = F(slots: 3, depth: 2)
        let p0 = F.partition(0)
        for (offset, slot) in [(0, 0), (1, 0)] { #expect(f.put(F.message(0, Int64(offset), slot: slot)).returned) }
        #expect(f.flow.isEmpty)
        // Slot 0 is full: 0@2 parks; 0@3 (slot 1, empty) and 0@4 park behind it.
        for (offset, slot) in [(2, 0), (3, 1), (4, 0)] {
            #expect(f.put(F.message(0, Int64(offset), slot: slot)).returned, "parking never waits")
        }
        #expect(f.flow == [.pause([p0])])
        #expect(f.dispatcher.pausedPartitions == 1)
        #expect(f.dispatcher.inFlight == 5)

        // Partition 1 flows through slots 1 and 2 while partition 0 is parked.
        for offset in 0..<20 {
            let slot = 1 + offset % 2
            #expect(f.put(F.message(1, Int64(offset), slot: slot)).returned)
            let taken = try f.takeNow(slot: slot, limit: 10)
            #expect(taken.positions == [Position(1, Int64(offset))], "0@3 must stay parked, not in slot 1")
            f.dispatcher.done(slot: slot, messages: taken)
        }
        #expect(f.flow == [.pause([p0])])

        // Slot 0 finishes 0@0: 0@2 moves in, 0@3 into slot 1, 0@4 stays parked (slot 0 full).
        let first = try f.takeNow(slot: 0)
        #expect(first.positions == [Position(0, 0)])
        f.dispatcher.done(slot: 0, messages: first)
        #expect(f.flow == [.pause([p0])], "resumed while a message was still parked")
        #expect(f.dispatcher.pausedPartitions == 1)
        let inSlot1 = try f.takeNow(slot: 1, limit: 10)
        #expect(inSlot1.positions == [Position(0, 3)])
        f.dispatcher.done(slot: 1, messages: inSlot1)

        // Slot 0 finishes 0@1: 0@4 moves in, the parked queue is empty, the partition resumes.
        let second = try f.takeNow(slot: 0)
        #expect(second.positions == [Position(0, 1)])
        f.dispatcher.done(slot: 0, messages: second)
        #expect(f.flow == [.pause([p0]), .resume([p0])])
        #expect(f.dispatcher.pausedPartitions == 0)
        let rest = try f.takeNow(slot: 0, limit: 10)
        #expect(rest.positions == [Position(0, 2), Position(0, 4)])
        f.dispatcher.done(slot: 0, messages: rest)
        #expect(f.dispatcher.inFlight == 0)

        // Resumed, the partition's next message goes straight to its slot.
        #expect(f.put(F.message(0, 5, slot: 1)).returned)
        #expect(try f.takeNow(slot: 1).positions == [Position(0, 5)])
        #expect(f.flow.count == 2)
    }

    /// Parked messages of revoked partitions are removed and handed back in order; they no
    /// longer count, and a revoked partition is never resumed. Parked messages never held the
    /// in-flight bound: a `put` waiting on it waits for a slot to finish, not for a drop.
    @Test func dropParkedRemovesRevokedPartitionsOnly() throws {
        let f = F(slots: 2, depth: 1, maxInFlight: 1)
        let p0 = F.partition(0), p1 = F.partition(1)
        #expect(f.put(F.message(0, 0, slot: 0)).returned)
        for m in [F.message(0, 1, slot: 0), F.message(0, 2, slot: 1), F.message(1, 0, slot: 0), F.message(1, 1, slot: 1)] {
            #expect(f.put(m).returned, "a parked message waited for the in-flight bound")
        }
        #expect(f.flow == [.pause([p0]), .pause([p1])])
        #expect(f.dispatcher.inFlight == 5)
        let waiting = f.put(F.message(2, 0, slot: 1))
        #expect(!waiting.returned, "over the in-flight bound, put waits")

        let dropped = f.dispatcher.dropParked([p0])
        #expect(dropped.positions == [Position(0, 1), Position(0, 2)])
        #expect(f.dispatcher.inFlight == 3)
        #expect(f.dispatcher.pausedPartitions == 1)
        waiting.advance()
        #expect(!waiting.returned, "dropping parked messages freed room they never held")

        #expect(f.dispatcher.dropParked().positions == [Position(1, 0), Position(1, 1)])
        #expect(f.dispatcher.pausedPartitions == 0)
        let first = try f.takeNow(slot: 0)
        f.dispatcher.done(slot: 0, messages: first)
        waiting.advance()
        #expect(waiting.returned, "a finished slot's room was not given to the waiting put")
        #expect(try f.takeNow(slot: 1).positions == [Position(2, 0)])
        #expect(f.flow == [.pause([p0]), .pause([p1])], "a revoked partition was resumed")
        #expect(f.dispatcher.dropParked([p0, p1]).isEmpty)
    }

    /// After `finish`, a taker gets what its slot still holds and then nil; one waiting on an
    /// empty slot gets nil at once; a `put` waiting for room returns, admitting nothing.
    @Test func finishEndsTakersAndWaitingPuts() throws {
        let f = F(slots: 3, depth: 4, maxInFlight: 2)
        #expect(f.put(F.message(0, 0, slot: 0)).returned)
        #expect(f.put(F.message(0, 1, slot: 0)).returned)
        let idle = f.take(slot: 1)
        #expect(!idle.returned, "a taker of an empty slot waits")
        let waitingPut = f.put(F.message(1, 0, slot: 2))
        #expect(!waitingPut.returned)

        f.dispatcher.finish()
        idle.advance()
        #expect(idle.returnedEnd)
        waitingPut.advance()
        #expect(waitingPut.returned, "a put waiting at finish never returned")
        #expect(f.dispatcher.inFlight == 2, "a put after finish admitted its message")
        #expect(try f.takeNow(slot: 0, limit: 10).positions == [Position(0, 0), Position(0, 1)])
        #expect(f.take(slot: 0).returnedEnd)
        #expect(f.take(slot: 2).returnedEnd)
    }

    /// Key lanes: a key has a lane of its own while it has messages held, so a stuck key holds
    /// up no other key, even one that arrives while every other lane is busy; the lane is free
    /// again once its key has nothing held.
    @Test func exclusiveKeysNeverShareALane() throws {
        let f = F(slots: 2, depth: 2, routing: .exclusiveKeys)
        func message(_ partition: Int32, _ offset: Int64, key: String) -> KafkaMessage {
            KafkaMessage(topic: "t", partition: partition, offset: offset, key: Array(key.utf8), value: [0x61])
        }
        let stuck = message(0, 0, key: "stuck")
        #expect(f.put(stuck).returned)
        #expect(try f.takeNow(slot: 0).positions == [Position(0, 0)])  // taken and never done
        // Another key gets the other lane, and keeps it while it has messages held.
        #expect(f.put(message(1, 0, key: "a")).returned)
        #expect(f.put(message(1, 1, key: "a")).returned)
        #expect(f.flow.isEmpty)
        let a = try f.takeNow(slot: 1, limit: 10)
        #expect(a.positions == [Position(1, 0), Position(1, 1)])
        // While "stuck" holds lane 0 and "a" lane 1, key "b" has none: its partition parks.
        #expect(f.put(message(2, 0, key: "b")).returned)
        #expect(f.flow == [.pause([F.partition(2)])])
        // "a" finishes: its lane is free, "b" moves in, partition 2 resumes.
        f.dispatcher.done(slot: 1, messages: a)
        #expect(f.flow == [.pause([F.partition(2)]), .resume([F.partition(2)])])
        #expect(try f.takeNow(slot: 1).positions == [Position(2, 0)])
        // The stuck key still holds only its own lane.
        #expect(f.put(message(0, 1, key: "stuck")).returned)
        #expect(f.dispatcher.pausedPartitions == 0, "the stuck key's lane had room for one more")
        #expect(f.put(message(0, 2, key: "stuck")).returned)
        #expect(f.dispatcher.pausedPartitions == 1, "the stuck key's third message did not park")
    }
}
