import Synchronization

/// Wakes the log writer: rung after a transaction that queued submissions has committed. The
/// writer is made after the parts that ring (it appends what they queue), so it attaches itself.
package final class WriterBell: Sendable {
    /// The writer's wake, as a struct's field. A closure held directly as a `Mutex`'s value (or
    /// an optional or a tuple of one) gains another reabstraction thunk pair at every
    /// `withLock`, which writes the inout value back (Swift 6.3): every ring then ran all the
    /// rings before it and, a few hundred thousand rings in, overflowed the stack. A struct's
    /// field keeps its own representation.
    private struct Attached {
        var wake: (@Sendable () -> Void)?
    }

    private let attached = Mutex(Attached())

    package init() {}

    /// Rings `writer` from now on.
    package func attach(_ writer: @escaping @Sendable () -> Void) { attached.withLock { $0.wake = writer } }

    /// Wakes the writer, if one is attached.
    package func ring() { attached.withLock { $0.wake }?() }
}
