import HallmarkKafka
import Testing

@testable import HallmarkRuntime

@Suite(.timeLimit(.minutes(2)))
struct OffsetTrackerTests {
    let p = KafkaTopicPartition(topic: "t", partition: 0)

    @Test func storedOffsetNeverPassesTheLowestUnfinishedMessage() {
        var tracker = OffsetTracker()
        tracker.assign(p, generation: 1)
        for offset in 10...14 { let r = tracker.begin(p, offset: Int64(offset), generation: 1); #expect(r) }
        do { let r = tracker.finish(p, offset: 12, generation: 1); #expect(r == nil) }
        do { let r = tracker.finish(p, offset: 11, generation: 1); #expect(r == nil) }
        do { let r = tracker.finish(p, offset: 10, generation: 1); #expect(r == 13) }
        #expect(tracker.inFlight() == 2)
        do { let r = tracker.finish(p, offset: 14, generation: 1); #expect(r == nil) }
        do { let r = tracker.finish(p, offset: 13, generation: 1); #expect(r == 15) }
        #expect(tracker.inFlight() == 0)
    }

    @Test func lowWaterMarkIsTheFirstUnfinishedOffset() {
        var tracker = OffsetTracker()
        tracker.assign(p, generation: 1)
        #expect(tracker.lowWaterMarks().isEmpty, "nothing seen yet")
        for o in Int64(5)...7 { _ = tracker.begin(p, offset: o, generation: 1) }
        #expect(tracker.lowWaterMarks() == [p: 5])
        _ = tracker.finish(p, offset: 5, generation: 1)
        _ = tracker.finish(p, offset: 7, generation: 1)
        #expect(tracker.lowWaterMarks() == [p: 6])
        _ = tracker.finish(p, offset: 6, generation: 1)
        #expect(tracker.lowWaterMarks() == [p: 8])
    }

    @Test func messagesFromBeforeAnAssignmentAreStale() {
        var tracker = OffsetTracker()
        do { let r = tracker.begin(p, offset: 1, generation: 0); #expect(!r, "not assigned") }
        tracker.assign(p, generation: 3)
        do { let r = tracker.begin(p, offset: 1, generation: 2); #expect(!r) }
        do { let r = tracker.begin(p, offset: 1, generation: 3); #expect(r) }
        do { let r = tracker.begin(p, offset: 1, generation: 3); #expect(!r, "offsets only move forward") }
        tracker.revoke(p)
        do { let r = tracker.finish(p, offset: 1, generation: 3); #expect(r == nil) }
    }

    /// Abandoning a message at shutdown (parked, or out of grace) forgets it and every later
    /// one of its partition, so they no longer count as in flight and the stored offset stops
    /// right before it; earlier messages still finish and store (dropping the whole partition
    /// instead lost their offsets, and a restart answered them twice).
    @Test func abandoningKeepsEarlierMessagesStorable() {
        var tracker = OffsetTracker()
        tracker.assign(p, generation: 1)
        for o in Int64(20)...25 { _ = tracker.begin(p, offset: o, generation: 1) }
        do { let r = tracker.finish(p, offset: 20, generation: 1); #expect(r == 21) }
        tracker.abandon(p, from: 23)
        #expect(tracker.inFlight() == 2, "23, 24 and 25 no longer count")
        do { let r = tracker.finish(p, offset: 24, generation: 1); #expect(r == nil, "forgotten") }
        do { let r = tracker.finish(p, offset: 22, generation: 1); #expect(r == nil) }
        do { let r = tracker.finish(p, offset: 21, generation: 1); #expect(r == 23, "stops right before the abandoned one") }
        #expect(tracker.inFlight() == 0)
        tracker.abandon(p, from: 30)  // nothing in flight from there: a no-op
        tracker.abandon(KafkaTopicPartition(topic: "t", partition: 9), from: 0)  // not assigned
        #expect(tracker.lowWaterMarks() == [p: 23])
    }

    @Test func randomCompletionOrderAlwaysStoresTheLowWaterMark() {
        var tracker = OffsetTracker()
        tracker.assign(p, generation: 1)
        let offsets = Array(Int64(0)..<2_000)
        for o in offsets { _ = tracker.begin(p, offset: o, generation: 1) }
        var finished = Set<Int64>()
        var stored: Int64 = 0
        for o in offsets.shuffled() {
            finished.insert(o)
            if let next = tracker.finish(p, offset: o, generation: 1) {
                #expect(next > stored)
                stored = next
            }
            var low: Int64 = 0
            while finished.contains(low) { low += 1 }
            #expect(stored == low)
        }
        #expect(stored == 2_000)
    }
}
