import HallmarkMessages
import Metrics

/// The aggregator's metrics, created once with fixed dimensions.
package struct AggregatorMetrics: Sendable {
    private let submissions: [String: Counter]
    private let verifications: [String: Counter]
    private let claims: [String: Counter]
    /// Submissions sent again under an id already answered.
    let resubmitted: Counter
    /// Derived images taken under their capture's token, not asked about again.
    let derived: Counter
    /// Authority answers that joined no waiting submission.
    let unmatchedReplies: Counter
    /// The log's size after each batch.
    let treeSize: Meter
    /// Events sent to the security topic (an id reused for other bytes).
    let securityEvents: Counter

    package init() {
        let service = ("service", "aggregator")
        let outcomes = Set(["accepted", "duplicate"] + SubmissionResult.Reason.allCases.map(\.rawValue))
        submissions = Dictionary(
            uniqueKeysWithValues: outcomes.map {
                ($0, Counter(label: "hallmark_aggregator_submissions_total", dimensions: [service, ("outcome", $0)]))
            })
        verifications = Dictionary(
            uniqueKeysWithValues: ["found", "not_found", "consistent", "traced", "rejected"].map {
                ($0, Counter(label: "hallmark_aggregator_verifications_total", dimensions: [service, ("status", $0)]))
            })
        claims = Dictionary(
            uniqueKeysWithValues: (["recorded"] + ModificationResult.Reason.allCases.map(\.rawValue)).map {
                ($0, Counter(label: "hallmark_aggregator_claims_total", dimensions: [service, ("outcome", $0)]))
            })
        resubmitted = Counter(label: "hallmark_aggregator_resubmissions_total", dimensions: [service])
        derived = Counter(label: "hallmark_aggregator_derived_submissions_total", dimensions: [service])
        unmatchedReplies = Counter(label: "hallmark_requests_unmatched_replies_total", dimensions: [service])
        treeSize = Meter(label: "hallmark_aggregator_tree_size", dimensions: [service])
        securityEvents = Counter(label: "hallmark_aggregator_security_events_total", dimensions: [service])
    }

    /// Counts a submission's outcome (a status or a rejection reason).
    func submission(_ outcome: String) { submissions[outcome]?.increment() }

    /// Counts a verification answer by status.
    func verification(_ status: String) { verifications[status]?.increment() }

    /// Counts an editor's claim by outcome (`recorded` or a rejection reason).
    func claim(_ outcome: String) { claims[outcome]?.increment() }
}
