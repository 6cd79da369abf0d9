import HallmarkCore
import Synchronization
import Testing

/// The one retry loop: its pauses, who decides to stop, its attempt limit and cancellation.
@Suite("Retry policy", .timeLimit(.minutes(1)))
struct RetryPolicyTests {
    struct Failure: Error, Equatable { let n: Int }

    @Test func pausesDoubleUpToTheirLimitAndNeverOverflow() {
        let policy = RetryPolicy(initialDelay: .milliseconds(50), maxDelay: .seconds(2))
        #expect((1...7).map(policy.delay(afterFailures:)) == [50, 100, 200, 400, 800, 1600, 2000].map(Duration.milliseconds))
        #expect(policy.delay(afterFailures: 0) == .milliseconds(50))
        #expect(policy.delay(afterFailures: 10_000) == .seconds(2))
        #expect(RetryPolicy(initialDelay: .seconds(1), maxDelay: .seconds(86_400)).delay(afterFailures: 64) == .seconds(86_400))
    }

    @Test func theBodyIsToldItsFailuresAndItsValueIsReturned() async throws {
        var seen: [Int] = []
        let value = try await RetryPolicy(initialDelay: .milliseconds(1), maxDelay: .milliseconds(2)).run { failures in
            seen.append(failures)
            guard failures == 3 else { throw Failure(n: failures) }
            return "done"
        }
        #expect(value == "done" && seen == [0, 1, 2, 3])
    }

    @Test func theCallerStopsWithAValueOrAnError() async throws {
        let policy = RetryPolicy(initialDelay: .milliseconds(1), maxDelay: .milliseconds(2))
        var tries = 0
        let stopped = try await policy.run { _ -> Int in
            tries += 1
            throw Failure(n: tries)
        } onFailure: { error, failures in
            failures == 2 ? .stop(-(error as! Failure).n) : .retry
        }
        #expect(stopped == -2 && tries == 2)
        await #expect(throws: Failure(n: 99)) {
            try await policy.run { _ in
                throw Failure(n: 1)
            } onFailure: { _, _ -> RetryPolicy.Step<Void> in
                throw Failure(n: 99)
            }
        }
    }

    @Test func theAttemptLimitRethrowsTheLastError() async throws {
        var tries = 0
        await #expect(throws: Failure(n: 4)) {
            try await RetryPolicy(initialDelay: .milliseconds(1), maxDelay: .milliseconds(1), maxAttempts: 4).run { _ in
                tries += 1
                throw Failure(n: tries)
            }
        }
        #expect(tries == 4)
    }

    /// A cancelled task must not wait out an hour's pause, nor spin through retries.
    @Test func aCancelledTaskStopsAtOnce() async throws {
        let tries = Atomic(0)
        let task = Task {
            try await RetryPolicy(initialDelay: .seconds(3600), maxDelay: .seconds(3600)).run { _ in
                tries.add(1, ordering: .relaxed)
                throw Failure(n: 0)
            }
        }
        while tries.load(ordering: .relaxed) == 0 { await Task.yield() }
        task.cancel()
        await #expect(throws: Failure(n: 0)) { try await task.value }
        #expect(tries.load(ordering: .relaxed) <= 2)
    }
}
