import HallmarkMessages
import HallmarkRuntime
import Metrics

/// The authority's metrics, created once with fixed dimensions.
package final class AuthorityMetrics: Sendable {
    /// Validations by outcome and reason (`reason` is `none` for PASS).
    let passed: Counter
    let failed: [ValidationReason: Counter]
    /// Time to validate one batch of tokens: parse, open, the replay statement, devices (ns).
    let validationTime: Timer
    /// Provisioning answers by status and reason.
    let provisioned: Counter
    let provisionRejected: [ProvisionResult.Reason: Counter]
    /// Security events published.
    let securityEvents: Counter
    /// Rows re-sealed under the current KEK.
    let resealed: Counter

    /// Creates the metrics.
    package init() {
        let service = ("service", "authority")
        passed = Counter(
            label: "hallmark_authority_validations_total",
            dimensions: [service, ("outcome", "pass"), ("reason", "none")])
        failed = Counter.perCase(
            ValidationReason.self, label: "hallmark_authority_validations_total", dimensions: [service, ("outcome", "fail")])
        validationTime = Timer(label: "hallmark_authority_validation_ns", dimensions: [service])
        provisioned = Counter(
            label: "hallmark_authority_provisioning_total",
            dimensions: [service, ("status", "provisioned"), ("reason", "none")])
        provisionRejected = Counter.perCase(
            ProvisionResult.Reason.self, label: "hallmark_authority_provisioning_total",
            dimensions: [service, ("status", "rejected")])
        securityEvents = Counter(label: "hallmark_authority_security_events_total", dimensions: [service])
        resealed = Counter(label: "hallmark_authority_resealed_total", dimensions: [service])
    }

    func record(_ reason: ValidationReason?) {
        if let reason { failed[reason]?.increment() } else { passed.increment() }
    }

    func record(_ result: ProvisionResult) {
        if let reason = result.reason { provisionRejected[reason]?.increment() } else { provisioned.increment() }
    }
}
