import HallmarkCore
import NIOCore
import Synchronization

/// Deadlines an event loop keeps for its connections' requests, each a fixed delay (the read
/// timeout, the backend timeout, the outcome's wait). Deadlines of one delay come due in the
/// order they were set, so each delay is a queue with one timer at its head, where a NIO timer
/// per deadline costs a heap insertion, and its cancellation a scan of the heap (about a tenth
/// of the edge's CPU at two thousand submissions a second). A deadline is never cancelled:
/// its action checks whether it still applies.
///
/// Used on its loop only; ``Registry`` hands each loop its own.
final class LoopDeadlines {
    private final class Queue {
        var due = CircularBuffer<(at: NIODeadline, action: () -> Void)>()
        var armed = false
    }

    private let loop: any EventLoop
    private var queues: [Int64: Queue] = [:]

    private init(loop: any EventLoop) {
        self.loop = loop
    }

    /// Runs `action` on the loop once `delay` has passed.
    func after(_ delay: Duration, _ action: @escaping () -> Void) {
        loop.preconditionInEventLoop()
        let nanoseconds = delay.nanoseconds
        let queue = queues[nanoseconds] ?? Queue()
        queues[nanoseconds] = queue
        queue.due.append((loop.now + .nanoseconds(nanoseconds), action))
        if !queue.armed { arm(queue) }
    }

    private func arm(_ queue: Queue) {
        guard let first = queue.due.first else { return queue.armed = false }
        queue.armed = true
        let bound = NIOLoopBound((self, queue), eventLoop: loop)
        loop.scheduleTask(deadline: first.at) {
            let (deadlines, queue) = bound.value
            deadlines.fire(queue)
        }
    }

    private func fire(_ queue: Queue) {
        let now = loop.now
        while let first = queue.due.first, first.at <= now {
            queue.due.removeFirst()
            first.action()
        }
        arm(queue)
    }

    /// Each event loop's ``LoopDeadlines``.
    final class Registry: Sendable {
        private let all = Mutex<[ObjectIdentifier: NIOLoopBound<LoopDeadlines>]>([:])

        init() {}

        /// The deadlines `loop` keeps; called on `loop`.
        func on(_ loop: any EventLoop) -> LoopDeadlines {
            all.withLock { all in
                if let kept = all[ObjectIdentifier(loop)] { return kept.value }
                let made = LoopDeadlines(loop: loop)
                all[ObjectIdentifier(loop)] = NIOLoopBound(made, eventLoop: loop)
                return made
            }
        }
    }
}
