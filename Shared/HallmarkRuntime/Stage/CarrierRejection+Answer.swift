import HallmarkCore
import HallmarkMessages
import Metrics

extension CarrierRejection {
    /// The rejected result answering a request: `code` when the result's schema lists it,
    /// else `malformed`, counted in `counters` (a processor's rejections by reason).
    public static func answer(
        _ id: String, requestID: String, correlationID: String, code: String, upstreamReason: String? = nil,
        counting counters: [Result.RejectionReason: Counter]
    ) -> CarrierRejection {
        let rejection = CarrierRejection(
            id: id, producedAt: Timestamp.now(), correlationID: correlationID, requestID: requestID,
            reason: .init(code: code), upstreamReason: upstreamReason)
        counters[rejection.reason]?.increment()
        return rejection
    }
}
