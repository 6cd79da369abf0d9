import AggregatorCore
import Synchronization
import Testing

/// The bell that wakes the log writer is rung after every committed batch that queued
/// submissions, for the life of the process.
@Suite("Writer bell", .timeLimit(.minutes(1)))
struct WriterBellTests {
    /// A ring costs the same at the millionth as at the first. Held directly in a `Mutex`, the
    /// wake closure gained a thunk pair at every ring: the n-th ring ran n nested calls, and
    /// this loop overflowed the stack (a crash) after a few hundred thousand rings, minutes of
    /// quadratic work before that.
    @Test func everyRingWakesTheWriterOnceAndNoRingGrowsTheNext() {
        let bell = WriterBell()
        let rings = Atomic(0)
        bell.ring()  // before the writer attaches: nothing to wake
        bell.attach { rings.add(1, ordering: .relaxed) }
        for _ in 0..<1_000_000 { bell.ring() }
        #expect(rings.load(ordering: .relaxed) == 1_000_000)
    }
}
