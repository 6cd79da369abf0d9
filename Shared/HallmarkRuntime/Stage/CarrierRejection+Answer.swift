import HallmarkCore
import HallmarkMessages
import Metrics

extension CarrierRejection {
    /// A rejected result: `code` when the result's schema lists it, else `malformed`, counted
    /// in `counters` (a processor's rejections by reason).
    public init(code: String, upstreamReason: String? = nil, counting counters: [Result.RejectionReason: Counter]) {
        self.init(reason: .init(code: code), upstreamReason: upstreamReason)
        counters[reason]?.increment()
    }
}
