import Foundation
import HallmarkCore
import HallmarkKafka

extension Stage {
    /// Starts tracking a fetched message; false for a stale one (skip it).
    func begin(_ message: KafkaMessage) -> Bool {
        let began = tracker.withLock {
            $0.begin(message.topicPartition, offset: message.offset, generation: message.generation)
        }
        if !began { metrics.stale.increment() }
        return began
    }

    /// A delivered unit: count it, store each partition's new low-water mark.
    func finish(_ unit: StageUnit, _ consumer: any StageSource) {
        lastProgress.store(Uptime.now(), ordering: .relaxed)
        metrics.processed.increment(by: unit.processed)
        if unit.duplicates > 0 { metrics.duplicates.increment(by: unit.duplicates) }
        // Stored under the tracker's lock: a revocation drains in-flight messages under it,
        // so once it sees a message finished, its offset is already stored for the commit.
        tracker.withLock { t in
            var next: [KafkaTopicPartition: Int64] = [:]
            for m in unit.messages {
                if let n = t.finish(m.topicPartition, offset: m.offset, generation: m.generation) {
                    next[m.topicPartition] = n
                }
            }
            for (partition, offset) in next {
                do {
                    try consumer.storeOffset(partition, nextOffset: offset)
                } catch {
                    logger.warning(
                        "offset not stored",
                        metadata: [
                            "partition": "\(partition)", "error": "\(ErrorPolicy.safeDescription(error))",
                        ])
                }
            }
        }
    }

    /// Parked messages dropped (left for the next owner): out of the in-flight count, and
    /// their partitions, which parking had paused, out of the paused count.
    func released(parked: [KafkaMessage]) {
        metrics.inFlight.decrement(by: Double(parked.count))
        metrics.pausedPartitions.decrement(by: Double(Set(parked.map(\.topicPartition)).count))
    }

    /// Gives up on a message at shutdown: never store past it, so the next owner re-reads it;
    /// earlier messages of its partition still in flight store their offsets when they finish.
    func abandon(_ message: KafkaMessage) {
        tracker.withLock { $0.abandon(message.topicPartition, from: message.offset) }
        logger(for: message).warning("message left unprocessed at shutdown")
    }

    /// Every 2 s, sets the lag gauges: messages between each partition's lowest unfinished
    /// offset and its end, per partition and summed. Checks for shutdown often so it never delays it.
    func reportLag(of consumer: any StageSource) async {
        var tick = 0
        while !isStopping {
            if tick % 20 == 0 {
                let ends = consumer.highWatermarks()
                let marks = tracker.withLock { $0.lowWaterMarks() }
                metrics.setLag(
                    Dictionary(uniqueKeysWithValues: marks.map { ($0.key, max(0, (ends[$0.key] ?? $0.value) - $0.value)) }))
            }
            tick += 1
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Called on the consumer's poll thread.
    func rebalanced(_ event: KafkaRebalanceEvent) {
        switch event.kind {
        case .assigned:
            tracker.withLock { t in event.partitions.forEach { t.assign($0, generation: event.generation) } }
        case .revoked:
            // Parked messages of these partitions are the next owner's now.
            let dropped = dispatcher.withLock { $0 }?.dropParked(event.partitions) ?? []
            if !dropped.isEmpty {
                logger.info(
                    "revoked partitions' waiting messages left for their next owner",
                    metadata: ["messages": "\(dropped.count)"])
                released(parked: dropped)
            }
            let deadline = ContinuousClock.now + configuration.revokeDrainTimeout
            while tracker.withLock({ $0.inFlight(in: event.partitions) }) > dropped.count, ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.005)
            }
            tracker.withLock { t in event.partitions.forEach { t.revoke($0) } }
        }
    }
}
