extension Duration {
    /// Whole nanoseconds, truncated and saturating at `Int64.max`: for metrics' timers and
    /// APIs that take an integer.
    public var nanoseconds: Int64 { whole(perSecond: 1_000_000_000) }

    /// Whole milliseconds, truncated and saturating at `Int64.max`: for C APIs that take a
    /// timeout in milliseconds.
    public var milliseconds: Int64 { whole(perSecond: 1000) }

    private func whole(perSecond units: Int64) -> Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: units)
        let (sum, carry) = whole.addingReportingOverflow(attoseconds / (1_000_000_000_000_000_000 / units))
        return overflow || carry ? .max : sum
    }
}
