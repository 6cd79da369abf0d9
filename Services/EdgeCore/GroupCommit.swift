import Synchronization

/// Group commit: items from concurrent requests written together. One write runs at a time;
/// what arrives meanwhile waits for the next, which takes it all (up to ``limit``). An idle
/// edge writes each item at once; a busy one writes hundreds per statement, so a submission
/// costs a row, not a transaction.
final class GroupCommit<Item: Sendable>: Sendable {
    private struct Waiting {
        var items: [Item] = []
        var continuations: [CheckedContinuation<Void, any Error>] = []
        var writing = false
    }

    private let state = Mutex(Waiting())
    private let limit: Int
    private let write: @Sendable ([Item]) async throws -> Void

    init(limit: Int = 1_000, write: @escaping @Sendable ([Item]) async throws -> Void) {
        self.limit = limit
        self.write = write
    }

    /// Returns once `item` is written (or throws the error of the write that held it).
    func submit(_ item: Item) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let lead = state.withLock { s -> Bool in
                s.items.append(item)
                s.continuations.append(continuation)
                guard !s.writing else { return false }
                s.writing = true
                return true
            }
            if lead { Task { await self.drain() } }
        }
    }

    /// Writes batches until nothing waits.
    private func drain() async {
        while true {
            let batch = state.withLock { s -> ([Item], [CheckedContinuation<Void, any Error>])? in
                guard !s.items.isEmpty else {
                    s.writing = false
                    return nil
                }
                let n = min(limit, s.items.count)
                defer {
                    s.items.removeFirst(n)
                    s.continuations.removeFirst(n)
                }
                return (Array(s.items[..<n]), Array(s.continuations[..<n]))
            }
            guard let (items, continuations) = batch else { return }
            do {
                try await write(items)
                continuations.forEach { $0.resume() }
            } catch {
                continuations.forEach { $0.resume(throwing: error) }
            }
        }
    }
}
