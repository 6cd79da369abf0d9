import Testing

@testable import HallmarkRuntime

/// The log writer's wake-up signal. Waits that must end early use an hour's timeout, so only
/// the signal or the cancellation can end them within the suite's limit; waits that must last
/// are measured from below (a timed-out wait takes at least its timeout).
@Suite("WakeSignal", .timeLimit(.minutes(1)))
struct WakeSignalTests {
    @Test func aTimedOutWaitLeavesTheSignalUsable() async throws {
        let signal = WakeSignal()
        let clock = ContinuousClock()
        // The writer's idle loop: every wait times out. Each must still take its timeout (an
        // AsyncStream finished by the first timeout made every later wait return at once).
        let elapsed = await clock.measure {
            for _ in 0..<5 { await signal.wait(timeout: .milliseconds(20)) }
        }
        #expect(elapsed >= .milliseconds(100))
        // And a signal still ends a wait.
        async let woken: Void = signal.wait(timeout: .seconds(3600))
        try await waitUntilParked(signal)
        signal.signal()
        await woken
    }

    @Test func aSignalWithNobodyWaitingEndsTheNextWaitOnly() async {
        let signal = WakeSignal()
        signal.signal()
        signal.signal()
        let clock = ContinuousClock()
        let first = await clock.measure { await signal.wait(timeout: .seconds(3600)) }
        #expect(first < .seconds(60))
        let second = await clock.measure { await signal.wait(timeout: .milliseconds(30)) }
        #expect(second >= .milliseconds(30))
    }

    @Test func cancellationEndsAWait() async throws {
        let signal = WakeSignal()
        let waiter = Task { await signal.wait(timeout: .seconds(3600)) }
        try await waitUntilParked(signal)
        waiter.cancel()
        await waiter.value
        // A wait cancelled before it parks returns too.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await signal.wait(timeout: .seconds(3600))
        }
        await early.value
    }

    /// Until a waiter is parked (observed, not assumed after a sleep).
    private func waitUntilParked(_ signal: WakeSignal) async throws {
        while !signal.hasWaiter { await Task.yield() }
    }
}
