import HallmarkMessages

extension SecurityEventLimiter.Decision {
    /// The events one rejection gets under this decision: its own event of `kind`, when it has
    /// a kind and the decision allows it, then the `rejection_rate` alert carrying the window's
    /// rejection count. `make` builds an event of a kind about the rejection (its id, subject
    /// and reason are the caller's).
    public func events(
        kind: SecurityEvent.Kind?, windowSeconds: Int,
        make: (SecurityEvent.Kind) -> Message<SecurityEvent>
    ) -> [Message<SecurityEvent>] {
        var events: [Message<SecurityEvent>] = []
        if event, let kind { events.append(make(kind)) }
        if let alert {
            var rate = make(.rejectionRate)
            rate.count = alert
            rate.windowSeconds = windowSeconds
            events.append(rate)
        }
        return events
    }
}
