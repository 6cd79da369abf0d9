import Testing

@testable import HallmarkRuntime

/// The batch workers' group commit. Waits that must end early have an hour's limit, so only a
/// finished batch can end them within the suite's limit; a wait that must last is measured
/// from below (a wait that reached its limit took at least that long).
@Suite("Batch group commit", .timeLimit(.minutes(1)))
struct BatchActivityTests {
    @Test func withNoBatchAtWorkAWorkerGoesAtOnce() async {
        let activity = BatchActivity()
        let elapsed = await ContinuousClock().measure { await activity.nextCompletion(atMost: .seconds(3600)) }
        #expect(elapsed < .seconds(30))
        activity.begin()
        activity.end()
        await activity.nextCompletion(atMost: .seconds(3600))  // the batch ended: idle again
    }

    @Test func aWorkerWaitsForTheBatchAtWorkAndGoesWhenItEnds() async throws {
        let activity = BatchActivity()
        activity.begin()
        async let first: Void = activity.nextCompletion(atMost: .seconds(3600))
        async let second: Void = activity.nextCompletion(atMost: .seconds(3600))
        while activity.waiting < 2 { await Task.yield() }
        activity.end()  // every worker waiting goes on
        _ = await (first, second)
        #expect(activity.waiting == 0)
    }

    @Test func anotherBatchStillAtWorkDoesNotHoldAWaiterOnceOneEnds() async throws {
        let activity = BatchActivity()
        activity.begin()
        activity.begin()
        async let waiter: Void = activity.nextCompletion(atMost: .seconds(3600))
        while activity.waiting < 1 { await Task.yield() }
        activity.end()
        await waiter
    }

    @Test func aBatchThatNeverEndsHoldsAWorkerOnlyForTheLimit() async {
        let activity = BatchActivity()
        activity.begin()
        let elapsed = await ContinuousClock().measure { await activity.nextCompletion(atMost: .milliseconds(40)) }
        #expect(elapsed >= .milliseconds(40))
        #expect(activity.waiting == 0)
    }

    @Test func cancellationEndsAWait() async throws {
        let activity = BatchActivity()
        activity.begin()
        let waiter = Task { await activity.nextCompletion(atMost: .seconds(3600)) }
        while activity.waiting < 1 { await Task.yield() }
        waiter.cancel()
        await waiter.value
        #expect(activity.waiting == 0)
    }
}
