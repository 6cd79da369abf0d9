import Foundation
import HallmarkSmileID
import HallmarkZip
import Logging
import Synchronization
import HallmarkTestSupport
import Testing

/// One memory budget for every zip in flight: first come first served, cancellable waits,
/// and, under load, never more held than the budget, with every read answered.
@Suite("Zip memory budget", .timeLimit(.minutes(3)))
struct ZipMemoryBudgetTests {
    @Test func waitersAreServedInOrderAndCancellationFreesTheirPlace() async throws {
        let budget = ZipMemoryBudget(capacity: 100, service: "test")
        let first = try await budget.reserve(60)
        let large = Task { try await budget.reserve(80) }
        try #require(try await eventually(timeout: .seconds(10), interval: .milliseconds(5)) { budget.waits == 1 })
        // 30 would fit beside the first, but waits behind the large one: first come, first served.
        let small = Task { try await budget.reserve(30) }
        try #require(try await eventually(timeout: .seconds(10), interval: .milliseconds(5)) { budget.waits == 2 })
        let cancelled = Task { try await budget.reserve(5) }
        try #require(try await eventually(timeout: .seconds(10), interval: .milliseconds(5)) { budget.waits == 3 })
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(budget.used == 60)
        first.release()
        first.release()  // a second release does nothing
        let held = try await large.value
        #expect(budget.used == 80)
        held.release()
        let heldSmall = try await small.value
        #expect(budget.used == 30)
        heldSmall.release()
        #expect(budget.used == 0 && budget.peak == 80)
        await #expect(throws: ZipError.self) { try await budget.reserve(101) }
        // A reservation dropped without release() is given back when freed.
        do { _ = try await budget.reserve(50) }
        #expect(budget.used == 0)
    }

    /// 24 legal uploads of 12 MiB (zeros, ~12 KB compressed) read at once through a 40 MiB
    /// budget: the signing buffers alive at any moment (measured on the buffers themselves,
    /// not on the budget's books) never pass 40 MiB, reads do wait, and every one completes.
    @Test func manyLargeLegalZipsStayWithinTheBudget() async throws {
        let limits = ZipLimits(maxEntries: 16, maxInflatedBytes: 16 << 20)
        let budget = ZipMemoryBudget(capacity: 40 << 20, service: "test")
        let pool = ZipWorkerPool(workers: 2, logger: Logger(label: "test"))
        defer { pool.stop() }
        let reader = ZipUploadReader(limits: limits, budget: budget, pool: pool, service: "test", logger: Logger(label: "t"))
        var file = ZipForge.Entry("data.bin")
        (file.data, file.declaredSize, file.crc) = (Deflate.zeros(mebibytes: 12), 12 << 20, Deflate.crc(Data(count: 12 << 20)))
        let body = ZipCheck.upload([file]).build()
        let live = LiveBytes()
        let completed = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<24 {
                group.addTask {
                    guard case .upload(let upload, let reservation) = try await reader.read(body) else { return 0 }
                    let bytes = upload.signingData.count + upload.securityInfo.count
                    live.add(bytes)
                    // Hold it as a verification would (a MAC over it on the pool).
                    _ = try await pool.perform { upload.signingData.reduce(0) { $0 &+ $1 } }
                    live.add(-bytes)
                    reservation.release()
                    return 1
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(completed == 24)
        let most = live.most
        #expect(most > 12 << 20 && most <= 40 << 20, "\(most)")
        #expect(budget.peak <= 40 << 20 && budget.peak >= most)
        #expect(budget.waits > 0)
        #expect(budget.used == 0)
    }

    @Test func aStoppedPoolFailsWithoutBlamingTheInput() async throws {
        let pool = ZipWorkerPool(workers: 1, logger: Logger(label: "test"))
        #expect(try await pool.perform { 7 } == 7)
        pool.stop()
        let error = await #expect(throws: ZipError.self) { try await pool.perform { 8 } }
        #expect(error?.code == .unavailable)
    }
}

/// Bytes of signing buffers alive, and the most at once.
final class LiveBytes: Sendable {
    private let state = Mutex((now: 0, most: 0))
    var most: Int { state.withLock { $0.most } }
    func add(_ bytes: Int) {
        state.withLock {
            $0.now += bytes; $0.most = max($0.most, $0.now)
        }
    }
}
