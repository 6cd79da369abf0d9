import Foundation
import HallmarkKafka
import Logging

extension Stage {
    /// Sends a unit's outputs (or waits for those already enqueued) until the broker
    /// acknowledges them all, retrying transient failures with backoff. A permanent failure
    /// (the broker refuses a result as too large) sends message by message, and a message whose
    /// result is refused gets a rejected record instead: nothing stalls. False only when
    /// shutdown's grace ran out first.
    func deliver(_ unit: StageUnit, enqueued: KafkaDeliveryGroup? = nil) async -> Bool {
        let outputs = unit.outputs
        guard !outputs.isEmpty else { return true }
        var group = enqueued
        var attempt = 0
        while true {
            do {
                if let group { try await group.wait() } else { try await producer.send(outputs) }
                return true
            } catch {
                group = nil
                if ErrorPolicy.isPermanent(error) { return await deliverEach(unit) }
                attempt += 1
                if pastShutdownGrace { return false }
                metrics.retries.increment()
                logger.warning(
                    "outputs not sent; retrying",
                    metadata: [
                        "messages": "\(unit.items.count)", "error": "\(ErrorPolicy.safeDescription(error))",
                    ])
                try? await Task.sleep(for: backoff(attempt))
            }
        }
    }

    private func deliverEach(_ unit: StageUnit) async -> Bool {
        for item in unit.items where !item.outputs.isEmpty {
            var outputs = item.outputs
            var attempt = 0
            var replaced = false
            while true {
                do {
                    try await producer.send(outputs)
                    break
                } catch {
                    if ErrorPolicy.isPermanent(error) {
                        guard !replaced else {
                            // Even the rejected record was refused: the broker's limit is below
                            // a few KiB. Say so loudly, and move on rather than stall.
                            logger(for: item.message, id: item.id).error(
                                "result and rejected record refused by the broker",
                                metadata: ["error": "\(ErrorPolicy.safeDescription(error))"])
                            break
                        }
                        replaced = true
                        outputs = rejectedOutput(
                            item.message, id: item.id,
                            StageRejection(
                                .oversized,
                                "the broker refused its result: \(ErrorPolicy.safeDescription(error))"))
                        continue
                    }
                    attempt += 1
                    if pastShutdownGrace { return false }
                    metrics.retries.increment()
                    try? await Task.sleep(for: backoff(attempt))
                }
            }
        }
        return true
    }
}
