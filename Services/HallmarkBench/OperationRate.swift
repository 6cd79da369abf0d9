/// Single-thread, in-process rates for `hallmark bench crypto` and `hallmark bench json`.
enum OperationRate {
    /// Operations per second of `body`, which performs `perCall` operations: one warm-up call,
    /// then calls until at least `duration` has passed. An error in `body` ends the measurement.
    static func measure(for duration: Duration, perCall: Int, _ body: () throws -> Void) throws -> Double {
        try body()  // warm-up
        let clock = ContinuousClock()
        let start = clock.now
        var calls = 0
        while true {
            try body()
            calls += 1
            let elapsed = clock.now - start
            if elapsed >= duration { return Double(calls * perCall) / elapsed.seconds }
        }
    }
}
