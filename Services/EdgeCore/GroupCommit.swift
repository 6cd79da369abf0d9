import Synchronization

/// Group commit: items from concurrent requests written together. One write runs at a time;
/// what arrives meanwhile waits for the next, which takes it all (up to ``limit``). An idle
/// edge writes each item at once; a busy one writes hundreds per statement, so a submission
/// costs a row, not a transaction.
final class GroupCommit<Item: Sendable>: Sendable {
    /// Told once an item is written, or the error of the write that held it.
    typealias Done = @Sendable (Result<Void, any Error>) -> Void

    private struct Waiting {
        var items: [Item] = []
        var done: [Done] = []
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
            submit(item) { continuation.resume(with: $0) }
        }
    }

    /// Calls `done` from the writing task once `item` is written (or with the error of the write
    /// that held it): for a caller that waits without a task of its own.
    func submit(_ item: Item, then done: @escaping Done) {
        let lead = state.withLock { s -> Bool in
            s.items.append(item)
            s.done.append(done)
            guard !s.writing else { return false }
            s.writing = true
            return true
        }
        if lead { Task { await self.drain() } }
    }

    /// Writes batches until nothing waits.
    private func drain() async {
        while true {
            let batch = state.withLock { s -> ([Item], [Done])? in
                guard !s.items.isEmpty else {
                    s.writing = false
                    return nil
                }
                let n = min(limit, s.items.count)
                defer {
                    s.items.removeFirst(n)
                    s.done.removeFirst(n)
                }
                return (Array(s.items[..<n]), Array(s.done[..<n]))
            }
            guard let (items, done) = batch else { return }
            do {
                try await write(items)
                done.forEach { $0(.success(())) }
            } catch {
                done.forEach { $0(.failure(error)) }
            }
        }
    }
}
