import Foundation
import HallmarkCore
import HallmarkKafka
import Logging

extension Stage {
    /// Sends a unit's outputs (or waits for those already enqueued) until the broker
    /// acknowledges them all, retrying transient failures with backoff. A permanent failure
    /// (the broker refuses a result as too large) sends message by message, and a message whose
    /// result is refused gets a rejected record instead: nothing stalls. False only when
    /// shutdown's grace ran out first.
    func deliver(_ unit: StageUnit, enqueued: (any StageDelivery)? = nil) async -> Bool {
        guard !unit.outputs.isEmpty else { return true }
        switch await send(unit.outputs, enqueued: enqueued, messages: unit.items.count) {
        case .sent: return true
        case .stopped: return false
        case .refused: return await deliverEach(unit)
        }
    }

    private func deliverEach(_ unit: StageUnit) async -> Bool {
        for item in unit.items where !item.outputs.isEmpty {
            switch await send(item.outputs, messages: 1) {
            case .sent: continue
            case .stopped: return false
            case .refused(let error):
                let record = rejectedOutput(
                    item.message, id: item.id,
                    StageRejection(.oversized, "the broker refused its result: \(ErrorPolicy.safeDescription(error))"))
                switch await send(record, messages: 1) {
                case .sent: continue
                case .stopped: return false
                case .refused(let error):
                    // Even the rejected record was refused: the broker's limit is below a few
                    // KiB. Say so loudly, and move on rather than stall.
                    logger(for: item.message, id: item.id).error(
                        "result and rejected record refused by the broker",
                        metadata: ["error": "\(ErrorPolicy.safeDescription(error))"])
                }
            }
        }
        return true
    }

    /// How a send ended.
    private enum Sent {
        case sent
        /// The broker refused the outputs for good (``ErrorPolicy/isPermanent(_:)``).
        case refused(any Error)
        /// Shutdown's grace ran out while retrying.
        case stopped
    }

    /// Sends `outputs` (or waits for `enqueued`, the first time) until acknowledged.
    private func send(_ outputs: [StageOutput], enqueued: (any StageDelivery)? = nil, messages: Int) async -> Sent {
        var group = enqueued
        let sent = try? await retryPolicy.run { _ -> Sent in
            if let group { try await group.wait() } else { try await producer.send(outputs) }
            return .sent
        } onFailure: { error, _ in
            group = nil
            if ErrorPolicy.isPermanent(error) { return .stop(.refused(error)) }
            if pastShutdownGrace { return .stop(.stopped) }
            metrics.retries.increment()
            logger.warning(
                "outputs not sent; retrying",
                metadata: ["messages": "\(messages)", "error": "\(ErrorPolicy.safeDescription(error))"])
            return .retry
        }
        return sent ?? .stopped
    }
}
