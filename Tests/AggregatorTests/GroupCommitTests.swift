@testable import EdgeCore
import Synchronization
import Testing

/// ``GroupCommit``: one write at a time, what waits goes in the next, every caller answered.
@Suite("Edge group commit", .timeLimit(.minutes(1)))
struct GroupCommitTests {
    final class Writes: Sendable {
        let batches = Mutex<[[Int]]>([])
        let inFlight = Atomic<Int>(0)
        let overlapped = Atomic<Bool>(false)
    }

    @Test func concurrentItemsAreWrittenTogetherOneWriteAtATime() async throws {
        let writes = Writes()
        let group = GroupCommit<Int>(limit: 50) { items in
            if writes.inFlight.add(1, ordering: .relaxed).newValue > 1 { writes.overlapped.store(true, ordering: .relaxed) }
            try await Task.sleep(for: .milliseconds(5))
            writes.batches.withLock { $0.append(items) }
            writes.inFlight.subtract(1, ordering: .relaxed)
        }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for i in 0..<500 { tasks.addTask { try await group.submit(i) } }
            try await tasks.waitForAll()
        }
        let batches = writes.batches.withLock { $0 }
        #expect(batches.flatMap { $0 }.sorted() == Array(0..<500))
        #expect(batches.count < 500 && batches.allSatisfy { $0.count <= 50 })
        let overlapped = writes.overlapped.load(ordering: .relaxed)
        #expect(!overlapped)
    }

    struct Refused: Error {}

    @Test func callbacksAreToldOnceTheirItemIsWritten() async throws {
        let group = GroupCommit<Int> { items in if items.contains(13) { throw Refused() } }
        let told = await withCheckedContinuation { (continuation: CheckedContinuation<[Int: Bool], Never>) in
            let results = Mutex<[Int: Bool]>([:])
            for i in [12, 13] {
                group.submit(i) { result in
                    let all = results.withLock { r -> [Int: Bool]? in
                        r[i] = (try? result.get()) != nil
                        return r.count == 2 ? r : nil
                    }
                    if let all { continuation.resume(returning: all) }
                }
            }
        }
        // One batch held both, or each its own: 12 is refused only with 13.
        #expect(told[13] == false && told.count == 2)
        try await group.submit(14)
    }

    @Test func aFailedWriteFailsItsCallersOnly() async throws {
        let group = GroupCommit<Int> { items in if items.contains(13) { throw Refused() } }
        await #expect(throws: Refused.self) { try await group.submit(13) }
        try await group.submit(14)
    }
}
