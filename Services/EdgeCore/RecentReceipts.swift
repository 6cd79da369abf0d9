import Foundation
import Synchronization

/// Receipts whose outcome this replica has written (a request that heard its own answer), so
/// the receipts stage, which reads the same answer moments later, need not write it again.
/// Bounded: the oldest are forgotten first, and a forgotten one only costs the stage a write
/// that changes nothing. Only rows known to hold their outcome are kept, so skipping is safe.
final class RecentReceipts: Sendable {
    private struct State {
        var members: Set<UUID> = []
        var order: [UUID] = []
        var next = 0
    }

    private let state = Mutex(State())
    private let capacity: Int

    init(capacity: Int = 65_536) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    /// Remembers `ids`, forgetting the oldest beyond the capacity.
    func insert(_ ids: some Sequence<UUID>) {
        state.withLock { s in
            for id in ids where s.members.insert(id).inserted {
                if s.order.count < capacity {
                    s.order.append(id)
                } else {
                    s.members.remove(s.order[s.next])
                    s.order[s.next] = id
                    s.next = (s.next + 1) % capacity
                }
            }
        }
    }

    /// Whether `id` is remembered.
    func contains(_ id: UUID) -> Bool { state.withLock { $0.members.contains(id) } }

    /// `items` without those whose id is remembered.
    func removingKnown<T>(_ items: [T], id: (T) -> UUID) -> [T] {
        let known = state.withLock { s in items.map { s.members.contains(id($0)) } }
        return zip(items, known).compactMap { $1 ? nil : $0 }
    }
}
