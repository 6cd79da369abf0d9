import Logging

extension SharedConsumer {
    /// Carries each member's committed offsets over from the group it read in on its own,
    /// for every partition the shared group has none of yet: a stage that had a consumer
    /// group of its own goes on where it stopped, instead of reading its topics again from
    /// the start. Call before the readers start. Returns the offsets carried. Throws when the
    /// broker cannot tell the offsets; a refused commit (the group has members already, which
    /// carried them) is logged and carries nothing.
    @discardableResult
    public func carryOverOffsets(timeout: Duration = .seconds(10)) async throws -> [KafkaTopicPartition: Int64] {
        let (shared, members) = state.withLock { ($0.native, $0.members) }
        let earlier = members.filter { $0.groupID != groupID }
        guard let shared, !earlier.isEmpty else { return [:] }
        let ms = Int32(clamping: timeout.components.seconds * 1000)
        let carried = try await BlockingCall.run(name: "hallmark-kafka-carry-over") {
            [configuration, logger, groupID] () throws -> [KafkaTopicPartition: Int64] in
            var carried: [KafkaTopicPartition: Int64] = [:]
            for member in earlier {
                var partitions: [KafkaTopicPartition] = []
                for topic in member.topics {
                    let ends = try shared.endOffsets(of: topic, timeoutMilliseconds: ms)
                    partitions += ends.keys.map { KafkaTopicPartition(topic: topic, partition: $0) }
                }
                let ours = try shared.committed(partitions, timeoutMilliseconds: ms)
                let missing = partitions.filter { (ours[$0] ?? -1) < 0 }
                guard !missing.isEmpty else { continue }
                // Never started: it only asks for the group's offsets, and never joins it.
                let before = try RDKafkaConsumer(
                    configuration: configuration, groupID: member.groupID, topics: [], bufferCapacity: 1,
                    logger: logger, rebalanceListener: nil)
                for (partition, offset) in try before.committed(missing, timeoutMilliseconds: ms) where offset >= 0 {
                    carried[partition] = offset
                }
            }
            do {
                try shared.commitSync(carried)
            } catch {
                // A broker refuses a commit from outside a group that has members: another
                // replica of this version joined first, and carried them over itself.
                logger.warning(
                    "offsets not carried over: the group has members already",
                    metadata: ["group": "\(groupID)", "error": "\(error)"])
                return [:]
            }
            return carried
        }
        if !carried.isEmpty {
            logger.info(
                "offsets carried over from the stages' own groups",
                metadata: [
                    "group": "\(groupID)", "from": "\(earlier.map(\.groupID).sorted())",
                    "partitions": "\(carried.keys.map(\.description).sorted())",
                ])
        }
        return carried
    }
}
