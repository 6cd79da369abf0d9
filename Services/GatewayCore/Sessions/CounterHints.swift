import Synchronization

/// Where this replica last saw each session's received counter (and row generation), so a
/// batch usually needs no read before its compare-and-set. Only a hint: a stale one (another
/// replica moved the counter or remade the session, or the transaction that set it rolled
/// back) misses the compare-and-set, which forgets it, and ``SessionStore/receive(_:on:)``
/// reads the row in the same transaction.
final class CounterHints: Sendable {
    private let hints = Mutex<[String: CounterRule.Position]>([:])
    /// Sessions remembered at most; past it the hints start over (each costs one read).
    let capacity: Int

    init(capacity: Int = 100_000) { self.capacity = capacity }

    func get(_ ids: [String]) -> [String: CounterRule.Position] {
        hints.withLock { h in
            var found: [String: CounterRule.Position] = [:]
            for id in ids { if let v = h[id] { found[id] = v } }
            return found
        }
    }

    func set(_ values: [String: CounterRule.Position]) {
        hints.withLock { h in
            if h.count + values.count > capacity { h.removeAll(keepingCapacity: true) }
            h.merge(values) { $1 }
        }
    }

    func forget(_ ids: some Sequence<String>) {
        hints.withLock { h in for id in ids { h[id] = nil } }
    }
}
