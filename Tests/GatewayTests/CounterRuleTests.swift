@testable import GatewayCore
import Testing

/// E2EE-1's receiving rule, applied message by message in arrival order.
@Suite(.timeLimit(.minutes(1)))
struct CounterRuleTests {
    typealias V = SessionStore.Verdict

    func run(_ counters: [UInt64], from last: Int64?) -> ([V], Int64?) {
        let (verdicts, after) = CounterRule.apply(counters.map { ("s", $0) }, from: last.map { ["s": $0] } ?? [:])
        return (verdicts, after["s"])
    }

    @Test func countersMustStrictlyIncrease() {
        #expect(run([0, 1, 2], from: -1) == ([.accept, .accept, .accept], 2))
        #expect(run([5, 3, 5, 6], from: 4) == ([.accept, .replay, .replay, .accept], 6))
        #expect(run([4], from: 4) == ([.replay], 4))
        // Gaps are allowed; the next must still be above the last accepted.
        #expect(run([10, 7, 11], from: 2) == ([.accept, .replay, .accept], 11))
    }

    @Test func aJumpOfAThousandOrMoreIsRefusedAndMovesNothing() {
        #expect(run([999], from: 0) == ([.accept], 999))
        #expect(run([1000], from: 0) == ([.counterJump], 0))
        #expect(run([998], from: -1) == ([.accept], 998))
        #expect(run([999], from: -1) == ([.counterJump], -1))
        // After a refused jump the rule still measures from the last accepted counter.
        #expect(run([5_000, 1, 2], from: 0) == ([.counterJump, .accept, .accept], 2))
        #expect(run([UInt64(Int64.max)], from: Int64.max - 999) == ([.accept], Int64.max))
    }

    @Test func noLiveSessionIsUnknownAndSessionsAreIndependent() {
        #expect(run([0, 1], from: nil) == ([.unknownSession, .unknownSession], nil))
        let items: [(sessionID: String, counter: UInt64)] = [("a", 0), ("b", 7), ("a", 0), ("c", 1), ("b", 8), ("a", 1)]
        let (verdicts, last) = CounterRule.apply(items, from: ["a": -1, "b": 6])
        #expect(verdicts == [.accept, .accept, .replay, .unknownSession, .accept, .accept])
        #expect(last == ["a": 1, "b": 8])
    }
}
