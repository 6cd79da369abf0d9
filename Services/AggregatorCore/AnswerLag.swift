import Synchronization

/// How far behind the authority's answers run: the age, when it was joined, of the freshest
/// token request in the last batch of answers (``SubmissionLedger/asked(_:on:)``; requests sent
/// more than once do not count, their age being mostly the wait before the resend).
///
/// A request is sent again only once it is overdue by this much more than
/// ``SubmissionLedger/Asking/resendAfter`` (``SubmissionLedger/claimDue(limit:on:)``): while the
/// authority works through a backlog, a request behind it is waiting in Kafka, not lost, and
/// sending it again, alone, costs the authority and the joiner a transaction each and deepens
/// the backlog it waits in. Under a paced stream at the edge of capacity the answers fell 5 s
/// behind and a tenth of the requests went again, at three times the PostgreSQL time a bundle
/// (#55). A request that is lost is sent again once it is overdue by the lag the last answers
/// showed; when none come (the authority away), by the last lag seen. Each replica keeps its
/// own: its joiner sees its partitions, whose lag is the topic's.
package final class AnswerLag: Sendable {
    private let milliseconds = Atomic<Int64>(0)

    package init() {}

    /// The freshest joined request's age, from the last batch that joined any.
    package var current: Duration { .milliseconds(milliseconds.load(ordering: .relaxed)) }

    /// Records the ages (milliseconds) of the requests one batch of answers joined.
    package func observe(ages: some Sequence<Int64>) {
        guard let freshest = ages.min() else { return }
        milliseconds.store(max(0, freshest), ordering: .relaxed)
    }
}
