import Synchronization
import Testing

@testable import HallmarkKafka

/// ``FetchRest`` and ``ConsumerPauses`` as logic, on a clock the test moves.
@Suite(.timeLimit(.minutes(1)))
struct FetchRestTests {
    static let ms: UInt64 = 1_000_000
    /// Idle after 1 s, checks 20 ms apart doubling up to 250 ms (a 10 ms fetch wait).
    static let policy = FetchRest.Policy(idleAfterMilliseconds: 1000, longestRestMilliseconds: 250, fetchWaitMilliseconds: 10)

    @Test func policyDerivesFromTheSettings() {
        #expect(Self.policy.idleAfter == 1000 * Self.ms)
        #expect(Self.policy.shortestRest == 20 * Self.ms)
        #expect(Self.policy.longestRest == 250 * Self.ms)
        // A first interval never exceeds the longest.
        let short = FetchRest.Policy(idleAfterMilliseconds: 5, longestRestMilliseconds: 3, fetchWaitMilliseconds: 100)
        #expect(short.shortestRest == 3 * Self.ms)
    }

    @Test func neverRestsWhenIdleAfterIsZero() {
        var rest = FetchRest(policy: .never, now: 0)
        #expect(rest.deadline == nil)
        #expect(rest.tick(at: 3_600_000 * Self.ms) == nil)
        #expect(rest.phase == .awake)
    }

    @Test func checksGrowToTheLongestWhileNothingMoves() {
        let ms = Self.ms
        var rest = FetchRest(policy: Self.policy, now: 0)
        #expect(rest.tick(at: 999 * ms) == nil)
        #expect(rest.deadline == 1000 * ms)
        var now = 1000 * ms
        #expect(rest.tick(at: now) == .pause)
        var intervals: [UInt64] = []
        for _ in 0..<6 {
            guard case .resting(let until, let length) = rest.phase else {
                Issue.record("expected a rest, got \(rest.phase)")
                return
            }
            intervals.append(length / ms)
            #expect(rest.tick(at: until - 1) == nil)
            now = until
            #expect(rest.tick(at: now) == .check)
            #expect(rest.checked(moved: false, at: now + 2 * ms) == nil)
            now += 2 * ms
        }
        #expect(intervals == [20, 40, 80, 160, 250, 250])
        #expect(rest.isResting)
    }

    @Test func aMovedEndOrTrafficWakesIt() {
        let ms = Self.ms
        var rest = FetchRest(policy: Self.policy, now: 0)
        #expect(rest.active(at: 500 * ms) == nil)
        #expect(rest.tick(at: 1000 * ms) == nil, "activity at 500 ms moves the rest to 1.5 s")
        #expect(rest.tick(at: 1500 * ms) == .pause)
        #expect(rest.active(at: 1510 * ms) == .resume)
        #expect(rest.phase == .awake)
        // A check that finds a moved end (or fails) wakes it.
        #expect(rest.tick(at: 2510 * ms) == .pause)
        #expect(rest.tick(at: 2530 * ms) == .check)
        #expect(rest.checked(moved: true, at: 2531 * ms) == .resume)
        #expect(rest.phase == .awake && rest.lastActivity == 2531 * ms)
        // An answer that comes after a wake changes nothing.
        #expect(rest.checked(moved: false, at: 2532 * ms) == nil)
        #expect(rest.phase == .awake)
        // Woken by a check, it stays awake until a message comes (at most ten quiet times)…
        #expect(rest.tick(at: 3531 * ms) == nil)
        #expect(rest.deadline == 12_531 * ms)
        #expect(rest.tick(at: 12_531 * ms) == .pause)
        #expect(rest.checked(moved: true, at: 12_600 * ms) == .resume)
        // …and once one came, rests again after one, with checks close together again.
        #expect(rest.received(at: 12_700 * ms) == nil)
        #expect(rest.tick(at: 13_699 * ms) == nil)
        #expect(rest.tick(at: 13_700 * ms) == .pause)
        #expect(rest.phase == .resting(until: 13_720 * ms, length: 20 * ms))
    }

    @Test func readerPausesAreExemptAndItsResumeWakes() {
        let ms = Self.ms
        let pauses = ConsumerPauses(policy: Self.policy, now: 0)
        let a = KafkaTopicPartition(topic: "t", partition: 0)
        let b = KafkaTopicPartition(topic: "t", partition: 1)
        pauses.readerPaused([a])
        let first = pauses.step(now: 1000 * ms)
        pauses.rested([b: 7])
        #expect(pauses.restedEnds == [b: 7])
        #expect(first?.action == .pause && first?.exempt == [a])
        #expect(pauses.isResting)
        #expect(pauses.pollTimeout(now: 1000 * ms) == 5, "the reader may resume its partition any moment")
        pauses.readerResumed([a], now: 1005 * ms)
        let woken = pauses.step(now: 1006 * ms)
        #expect(woken?.action == .resume && woken?.exempt == [])
        #expect(!pauses.isResting)
        // An assignment clears the reader's pause of a partition and wakes the consumer.
        pauses.readerPaused([b])
        #expect(pauses.step(now: 2006 * ms)?.action == .pause)
        pauses.assignmentChanged([b], now: 2007 * ms)
        let assigned = pauses.step(now: 2008 * ms)
        #expect(assigned?.action == .resume && assigned?.exempt == [])
    }

    /// librdkafka's broker thread, every partition paused, sleeps until a timer (up to a
    /// second) and a resume does not wake it: the poll thread hands it a request instead.
    @Test func aReaderResumeIsHandedToThePollThreadOnce() {
        let pauses = ConsumerPauses(policy: Self.policy, now: 0)
        let a = KafkaTopicPartition(topic: "t", partition: 0)
        let b = KafkaTopicPartition(topic: "t", partition: 1)
        #expect(pauses.takeResumed().isEmpty)
        #expect(pauses.pollTimeout(now: 0) == 100, "nothing paused: the loop's own longest wait")
        pauses.readerPaused([a, b])
        #expect(pauses.pollTimeout(now: 0) == 5, "a paused partition is resumed from another thread: look soon")
        pauses.readerResumed([a])
        #expect(pauses.takeResumed() == [a])
        #expect(pauses.takeResumed().isEmpty, "handed over once")
        pauses.readerResumed([b])
        pauses.readerPaused([b])
        #expect(pauses.takeResumed().isEmpty, "paused again before the poll thread looked: nothing to wake")
        pauses.readerResumed([b])
        #expect(pauses.pollTimeout(now: 0) == 5, "a resume not yet handed over")
        #expect(pauses.takeResumed() == [b])
        #expect(pauses.pollTimeout(now: 0) == 100)
        // A new assignment's fetch starts by itself.
        pauses.assignmentChanged([a])
        #expect(pauses.takeResumed().isEmpty)
    }

    @Test func producingWakesOnlyConsumersThatListen() {
        let ms = Self.ms
        let clock = Clock()
        let listening = ConsumerPauses(policy: Self.policy, wakesOnProduce: true, now: 0) {
            clock.last.load(ordering: .relaxed)
        }
        let deaf = ConsumerPauses(policy: Self.policy, now: 0) { clock.last.load(ordering: .relaxed) }
        #expect(listening.step(now: 1000 * ms)?.action == .pause)
        #expect(deaf.step(now: 1000 * ms)?.action == .pause)
        clock.last.store(1001 * ms, ordering: .relaxed)
        #expect(listening.step(now: 1002 * ms)?.action == .resume)
        #expect(deaf.step(now: 1002 * ms) == nil)
        #expect(deaf.isResting)
    }

    @Test func onlyAConsumerThatProducingWakesPollsItsClockWhileResting() {
        let ms = Self.ms
        // Checks 200 ms apart (twice a 100 ms fetch wait).
        let policy = FetchRest.Policy(idleAfterMilliseconds: 1000, longestRestMilliseconds: 250, fetchWaitMilliseconds: 100)
        let listening = ConsumerPauses(policy: policy, wakesOnProduce: true, now: 0) { 0 }
        let deaf = ConsumerPauses(policy: policy, now: 0) { 0 }
        #expect(deaf.pollTimeout(now: 500 * ms) == 100, "awake: the loop's own longest wait")
        #expect(listening.step(now: 1000 * ms)?.action == .pause)
        #expect(deaf.step(now: 1000 * ms)?.action == .pause)
        #expect(listening.pollTimeout(now: 1000 * ms) == 20)
        #expect(deaf.pollTimeout(now: 1000 * ms) == 100, "nothing but the next check (or a nudge) to wait for")
        #expect(deaf.pollTimeout(now: 1150 * ms) == 50)
    }

    /// A produce clock of the test's own: the process's is shared by every test.
    final class Clock: Sendable {
        let last = Atomic<UInt64>(0)
    }
}
