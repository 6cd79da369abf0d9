/// How Hallmark tries an operation again: exponential backoff from ``initialDelay``, doubling
/// up to ``maxDelay``, for at most ``maxAttempts`` tries (nil: until the caller stops).
///
/// Every retry loop goes through ``run(isolation:_:onFailure:)``, so there is one backoff
/// formula, and the decision after a failure (retry, or stop with a value) is the caller's.
/// A cancelled task stops at once: it does not spin through its remaining attempts.
public struct RetryPolicy: Sendable, Hashable {
    /// The pause after the first failure.
    public var initialDelay: Duration
    /// The longest pause.
    public var maxDelay: Duration
    /// Tries in all, the first included; nil for no limit.
    public var maxAttempts: Int?

    public init(initialDelay: Duration = .milliseconds(50), maxDelay: Duration = .seconds(2), maxAttempts: Int? = nil) {
        precondition(initialDelay > .zero && maxDelay >= initialDelay, "delays must be positive and ordered")
        precondition(maxAttempts.map { $0 >= 1 } ?? true, "at least one attempt")
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.maxAttempts = maxAttempts
    }

    /// What to do after a failure.
    public enum Step<Value> {
        /// Pause ``RetryPolicy/delay(afterFailures:)``, then try again.
        case retry
        /// Stop trying; `run` returns the value.
        case stop(Value)
    }

    /// The pause after `failures` failures in a row (1 or more): `initialDelay · 2^(failures − 1)`,
    /// at most `maxDelay`.
    public func delay(afterFailures failures: Int) -> Duration {
        let doublings = min(max(failures - 1, 0), 30)
        let delay = initialDelay * (1 << doublings)
        return delay > maxDelay || delay < initialDelay ? maxDelay : delay
    }

    /// Runs `body` (given the failures so far) until it returns a value. After each failure,
    /// `onFailure(error, failures)` says whether to retry or to stop with a value; it may also
    /// throw. The last error is thrown when the attempts are used up or the task is cancelled.
    public func run<Value>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (_ failures: Int) async throws -> Value,
        onFailure: (_ error: any Error, _ failures: Int) async throws -> Step<Value> = { _, _ in .retry }
    ) async throws -> Value {
        var failures = 0
        while true {
            do {
                return try await body(failures)
            } catch {
                failures += 1
                if case .stop(let value) = try await onFailure(error, failures) { return value }
                if let maxAttempts, failures >= maxAttempts { throw error }
                if Task.isCancelled { throw error }
                let failure = error
                do { try await Task.sleep(for: delay(afterFailures: failures)) } catch { throw failure }
            }
        }
    }
}
