import Synchronization

/// A ``Pattern``'s DFAs: a few copies, each behind its own lock, that grow as matches need.
///
/// One DFA behind one lock made every thread that validated wait for the others and pass the
/// lock's cache line between cores. A thread now starts at the copy its stack picks and takes
/// the first one free, so threads mostly keep to copies of their own; each copy builds the
/// states its matches need (a token field's pattern needs a few hundred).
final class DFACache: Sendable {
    /// One DFA and its lock, alone on its cache lines.
    final class Shard: Sendable {
        let states: Mutex<LazyDFA>
        init(_ dfa: sending LazyDFA) { states = Mutex(dfa) }
    }

    static let shardCount = 4
    /// The copies, borrowed (``Borrowed``): retaining one from every thread was another
    /// shared count.
    let shards: [Borrowed<Shard>]
    let owned: [Shard]

    init(program: [Instruction], anchoredStart: Bool, anchoredEnd: Bool) {
        owned = (0..<Self.shardCount).map { _ in
            Shard(LazyDFA(program: program, anchoredStart: anchoredStart, anchoredEnd: anchoredEnd))
        }
        shards = owned.map(Borrowed.init)
    }

    /// `body` on one of the DFAs, under its lock.
    func withDFA(_ body: (inout LazyDFA) -> Bool?) -> Bool? {
        let start = Self.threadHint % shards.count
        for k in 0..<shards.count {
            let result = shards[(start + k) % shards.count].with { $0.states.withLockIfAvailable { body(&$0) } }
            if let result { return result }
        }
        return shards[start].with { $0.states.withLock { body(&$0) } }
    }

    /// A number that differs between threads and stays the same within one: the address of
    /// the caller's stack, whose threads' stacks lie megabytes apart.
    private static var threadHint: Int {
        var marker: UInt8 = 0
        let address = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
        return Int(truncatingIfNeeded: ((address >> 16) &* 0x9E37_79B9_7F4A_7C15) >> 58)
    }
}
