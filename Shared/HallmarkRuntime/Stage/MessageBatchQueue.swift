import HallmarkKafka
import Synchronization

/// A bounded queue between the consumer and one batch worker: the worker takes everything
/// waiting (up to a limit) at once, so batches grow by themselves while the previous one is
/// being processed. One putter and one taker.
final class MessageBatchQueue: Sendable {
    private struct State {
        var items: [KafkaMessage] = []
        var finished = false
        var taker: (limit: Int, continuation: CheckedContinuation<[KafkaMessage]?, Never>)?
        var putter: CheckedContinuation<Void, Never>?
    }
    private let state = Mutex(State())
    private let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Adds a message; waits while the queue is full.
    func put(_ message: KafkaMessage) async {
        let (taker, batch, full) = state.withLock { s -> (CheckedContinuation<[KafkaMessage]?, Never>?, [KafkaMessage], Bool) in
            s.items.append(message)
            if let t = s.taker {
                s.taker = nil
                return (t.continuation, Self.take(&s.items, t.limit), false)
            }
            return (nil, [], s.items.count >= capacity)
        }
        taker?.resume(returning: batch)
        guard full else { return }
        await withCheckedContinuation { (space: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.items.count < capacity || s.finished { return true }
                s.putter = space
                return false
            }
            if now { space.resume() }
        }
    }

    /// Up to `limit` messages, waiting for at least one; nil once finished and empty.
    func take(limit: Int) async -> [KafkaMessage]? {
        await withCheckedContinuation { (waiter: CheckedContinuation<[KafkaMessage]?, Never>) in
            let (ready, putter) = state.withLock { s -> ([KafkaMessage]??, CheckedContinuation<Void, Never>?) in
                if !s.items.isEmpty {
                    let batch = Self.take(&s.items, limit)
                    defer { s.putter = nil }
                    return (.some(batch), s.putter)
                }
                if s.finished { return (.some(nil), nil) }
                s.taker = (limit, waiter)
                return (nil, nil)
            }
            putter?.resume()
            if let ready { waiter.resume(returning: ready) }
        }
    }

    /// No more messages; the taker gets what is left, then nil.
    func finish() {
        let (taker, putter) = state.withLock { s -> (CheckedContinuation<[KafkaMessage]?, Never>?, CheckedContinuation<Void, Never>?) in
            s.finished = true
            defer { s.taker = nil; s.putter = nil }
            return (s.taker?.continuation, s.putter)
        }
        taker?.resume(returning: nil)  // a waiting taker means the queue is empty
        putter?.resume()
    }

    private static func take(_ items: inout [KafkaMessage], _ limit: Int) -> [KafkaMessage] {
        let n = min(items.count, max(1, limit))
        let batch = Array(items.prefix(n))
        items.removeFirst(n)
        return batch
    }
}
