@testable import GatewayCore
import Testing

/// E2EE-1's receiving rule, applied message by message in arrival order.
@Suite(.timeLimit(.minutes(1)))
struct CounterRuleTests {
    typealias V = SessionStore.Verdict

    func run(_ counters: [UInt64], from last: Int64?) -> ([V], Int64?) {
        let (verdicts, after) = CounterRule.apply(
            counters.map { ("s", 1, $0) },
            from: last.map { ["s": .init(generation: 1, counter: $0)] } ?? [:])
        return (verdicts, after["s"]?.counter)
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
        let items: [(sessionID: String, generation: Int64, counter: UInt64)] =
            [("a", 1, 0), ("b", 2, 7), ("a", 1, 0), ("c", 3, 1), ("b", 2, 8), ("a", 1, 1)]
        let (verdicts, last) = CounterRule.apply(
            items,
            from: [
                "a": .init(generation: 1, counter: -1),
                "b": .init(generation: 2, counter: 6),
            ])
        #expect(verdicts == [.accept, .accept, .replay, .unknownSession, .accept, .accept])
        #expect(last == ["a": .init(generation: 1, counter: 1), "b": .init(generation: 2, counter: 8)])
    }

    /// A message opened with the key of another generation of its session id (a closed
    /// session's, still cached) is stale whatever its counter, and moves nothing.
    @Test func aKeyOfAnotherGenerationIsStaleAndMovesNothing() {
        let items: [(sessionID: String, generation: Int64, counter: UInt64)] = [
            ("s", 1, 5), ("s", 2, 0), ("s", 1, 6), ("s", 2, 1),
        ]
        let (verdicts, last) = CounterRule.apply(items, from: ["s": .init(generation: 2, counter: -1)])
        #expect(verdicts == [.staleKey, .accept, .staleKey, .accept])
        #expect(last == ["s": .init(generation: 2, counter: 1)])
    }
}
