import HallmarkCore
import rdkafka

extension RDKafkaConsumer {
    /// The poll thread's turn at ``FetchRest``: pauses, checks or resumes as the rest calls for.
    func rest(now: UInt64) {
        let resumed = pauses.takeResumed()
        if !resumed.isEmpty { _ = endOffsets(resumed) }  // wakes the broker thread: see `apply`
        guard let (action, exempt) = pauses.step(now: now) else { return }
        switch action {
        case .pause:
            let partitions = apply(.pause, exempt: exempt)
            // Something fetched in the last moment before the pause may be unread yet: then
            // the rest ends before it begins.
            guard let ends = endOffsets(partitions), !hasUnread(ends) else {
                perform(pauses.checked(moved: true))
                return
            }
            pauses.rested(ends)
        case .check:
            let before = pauses.restedEnds
            // Partitions the rest did not pause (an assignment whose wake-up it missed, say one
            // that came as it paused) end it too: a rest never outlasts its own assignment.
            guard Set(restable(exempt: exempt)) == Set(before.keys) else {
                perform(pauses.checked(moved: true))
                return
            }
            let ends = endOffsets(Array(before.keys))
            perform(pauses.checked(moved: ends != before))
        case .resume:
            apply(.resume, exempt: exempt)
        }
    }

    /// Applies a wake-up the poll thread saw (a message, a full buffer, a check's answer).
    func perform(_ action: FetchRest.Action?) {
        guard let action else { return }
        apply(action, exempt: pauses.readerPausedPartitions)
    }

    /// Pauses or resumes every assigned partition but those the reader paused itself; returns them.
    @discardableResult
    private func apply(_ action: FetchRest.Action, exempt: Set<KafkaTopicPartition>) -> [KafkaTopicPartition] {
        guard action != .check else { return [] }
        let partitions = restable(exempt: exempt)
        setPausedNative(partitions, action == .pause)
        // A broker thread with nothing to fetch sleeps until its next request (a heartbeat,
        // 500 ms), and a resume alone does not wake it: the first message after a rest waited
        // 250–400 ms for it on Tansu. A request to the broker wakes it, and its fetch goes out
        // within 2 ms.
        if action == .resume { _ = endOffsets(partitions) }
        return partitions
    }

    /// The partitions a rest pauses: every assigned one but those the reader paused itself.
    private func restable(exempt: Set<KafkaTopicPartition>) -> [KafkaTopicPartition] {
        assignment().filter { !exempt.contains($0) }
    }

    /// The partitions' end offsets, asked of the broker in one `ListOffsets` request (a
    /// timestamp of -1 is "latest"); nil when it does not answer within 500 ms. Blocks.
    func endOffsets(_ partitions: [KafkaTopicPartition]) -> [KafkaTopicPartition: Int64]? {
        guard !partitions.isEmpty else { return [:] }
        // A check is the poll thread at work, not stuck: liveness (``sinceLastPoll``) counts it.
        lastLoop.store(Uptime.now(), ordering: .relaxed)
        guard let list = rd_kafka_topic_partition_list_new(Int32(partitions.count)) else { return nil }
        defer { rd_kafka_topic_partition_list_destroy(list) }
        for p in partitions { rd_kafka_topic_partition_list_add(list, p.topic, p.partition).pointee.offset = -1 }
        guard rd_kafka_offsets_for_times(client.handle, list, 500) == RD_KAFKA_RESP_ERR_NO_ERROR else { return nil }
        for i in 0..<Int(list.pointee.cnt) where list.pointee.elems[i].err != RD_KAFKA_RESP_ERR_NO_ERROR {
            return nil
        }
        return Self.offsets(of: list)
    }

    /// Whether any partition has messages the consumer has not read: its position (the next
    /// offset it hands out) is below its end. A partition read nothing since its assignment
    /// has no position; its committed offset stands in, and with none either it counts as
    /// unread when the group starts at the beginning (a rest then waits for its first message)
    /// and as read when it starts at the end.
    func hasUnread(_ ends: [KafkaTopicPartition: Int64]) -> Bool {
        guard !ends.isEmpty, let list = rd_kafka_topic_partition_list_new(Int32(ends.count)) else { return false }
        defer { rd_kafka_topic_partition_list_destroy(list) }
        for p in ends.keys { rd_kafka_topic_partition_list_add(list, p.topic, p.partition) }
        guard rd_kafka_position(client.handle, list) == RD_KAFKA_RESP_ERR_NO_ERROR else { return true }
        var positions = Self.offsets(of: list)
        let unknown = positions.filter { $0.value < 0 }.map(\.key)
        if !unknown.isEmpty {
            lastLoop.store(Uptime.now(), ordering: .relaxed)
            guard let committed = try? committed(unknown, timeoutMilliseconds: 500) else { return true }
            for (partition, offset) in committed { positions[partition] = offset }
        }
        return positions.contains { partition, position in
            let end = ends[partition] ?? 0
            return position >= 0 ? position < end : !startsAtEnd && end > 0
        }
    }
}
