/// Whether `condition` holds within `timeout`, checked every `interval`: how a test waits for
/// a state it cannot be told about (a cache's expiry, a row another process writes), rather
/// than sleeping for a guessed time.
public func eventually(
    timeout: Duration = .seconds(30), interval: Duration = .milliseconds(50),
    _ condition: () async throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try await condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        try await Task.sleep(for: interval)
    }
}

/// The first non-nil `value` within `timeout`, asked every `interval`; nil if none came.
public func eventually<Value>(
    timeout: Duration = .seconds(30), interval: Duration = .milliseconds(50),
    _ value: () async throws -> Value?
) async throws -> Value? {
    var found: Value?
    _ = try await eventually(timeout: timeout, interval: interval) {
        found = try await value()
        return found != nil
    }
    return found
}
