@testable import EdgeCore
import NIOCore
import NIOEmbedded
import Testing

/// ``LoopDeadlines``: each delay's deadlines come due in the order they were set, at their
/// time on the loop's clock, with one timer per delay, and a drained queue is armed again.
@Suite("Loop deadlines", .timeLimit(.minutes(1)))
struct LoopDeadlinesTests {
    @Test func eachDeadlineComesDueAtItsTime() {
        let loop = EmbeddedEventLoop()
        let registry = LoopDeadlines.Registry()
        let deadlines = registry.on(loop)
        #expect(registry.on(loop) === deadlines)
        var fired: [String] = []
        deadlines.after(.seconds(5)) { fired.append("a5") }
        deadlines.after(.seconds(1)) { fired.append("a1") }
        loop.advanceTime(by: .milliseconds(500))
        deadlines.after(.seconds(5)) { fired.append("b5") }
        deadlines.after(.seconds(1)) { fired.append("b1") }
        loop.advanceTime(by: .milliseconds(499))
        #expect(fired.isEmpty)
        loop.advanceTime(by: .milliseconds(1))
        #expect(fired == ["a1"])
        loop.advanceTime(by: .milliseconds(500))
        #expect(fired == ["a1", "b1"])
        loop.advanceTime(by: .milliseconds(3_499))
        #expect(fired == ["a1", "b1"])
        loop.advanceTime(by: .milliseconds(1))
        #expect(fired == ["a1", "b1", "a5"])
        loop.advanceTime(by: .milliseconds(500))
        #expect(fired == ["a1", "b1", "a5", "b5"])
        // Drained, then set again: armed again.
        deadlines.after(.milliseconds(10)) { fired.append("c") }
        deadlines.after(.milliseconds(10)) { fired.append("d") }
        loop.advanceTime(by: .milliseconds(10))
        #expect(fired.suffix(2) == ["c", "d"])
        // Another loop keeps its own.
        #expect(registry.on(EmbeddedEventLoop()) !== deadlines)
    }
}
