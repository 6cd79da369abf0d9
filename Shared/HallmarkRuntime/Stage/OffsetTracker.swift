import HallmarkKafka

/// Which offsets of each partition are in flight, so the stored offset never passes a message
/// that is still being processed: it is always the lowest unfinished offset.
///
/// Messages of one partition begin in offset order (the consumer delivers them so); they may
/// finish in any order.
struct OffsetTracker: Sendable {
    private struct Lane: Sendable {
        var generation: UInt64
        var offsets: [Int64] = []
        var done: [Bool] = []
        var head = 0
        /// The offset stored last (everything before it is finished).
        var stored: Int64?

        var inFlight: Int { offsets.count - head }

        mutating func compact() {
            guard head > 256, head * 2 > offsets.count else { return }
            offsets.removeFirst(head)
            done.removeFirst(head)
            head = 0
        }

        mutating func abandon(from offset: Int64) {
            let keep = offsets[head...].firstIndex { $0 >= offset } ?? offsets.count
            offsets.removeSubrange(keep...)
            done.removeSubrange(keep...)
        }

        mutating func begin(offset: Int64, generation: UInt64) -> Bool {
            guard generation >= self.generation else { return false }
            if let last = offsets.last, offset <= last { return false }
            offsets.append(offset)
            done.append(false)
            return true
        }

        mutating func finish(offset: Int64, generation: UInt64) -> Int64? {
            guard self.generation <= generation, let index = index(of: offset) else { return nil }
            done[index] = true
            var advanced: Int64?
            while head < offsets.count, done[head] {
                advanced = offsets[head] + 1
                head += 1
            }
            compact()
            if let advanced { stored = advanced }
            return advanced
        }

        /// Where `offset` is among those in flight (binary search: they are in order).
        private func index(of offset: Int64) -> Int? {
            var (lo, hi) = (head, offsets.count - 1)
            while lo <= hi {
                let mid = (lo + hi) / 2
                if offsets[mid] == offset { return mid }
                if offsets[mid] < offset { lo = mid + 1 } else { hi = mid - 1 }
            }
            return nil
        }
    }

    // Lanes are changed in place (`lanes[partition]?.…`): a copy taken out of the dictionary
    // and written back would copy its arrays on every message, O(messages in flight) each.
    private var lanes: [KafkaTopicPartition: Lane] = [:]

    /// Starts tracking a partition afresh (on assignment); earlier generations become stale.
    mutating func assign(_ partition: KafkaTopicPartition, generation: UInt64) {
        lanes[partition] = Lane(generation: generation)
    }

    /// Stops tracking a partition (on revocation).
    mutating func revoke(_ partition: KafkaTopicPartition) {
        lanes[partition] = nil
    }

    /// Gives up on a message and on every later one of its partition in flight: they are
    /// forgotten, so the stored offset can reach this one but never pass it (its next owner
    /// reads it again), while earlier messages still finish and store their offsets.
    mutating func abandon(_ partition: KafkaTopicPartition, from offset: Int64) {
        lanes[partition]?.abandon(from: offset)
    }

    /// Records that a message is in flight. Returns false for a message fetched before the
    /// partition's current assignment (or for a partition not assigned): the caller skips it.
    mutating func begin(_ partition: KafkaTopicPartition, offset: Int64, generation: UInt64) -> Bool {
        lanes[partition]?.begin(offset: offset, generation: generation) ?? false
    }

    /// Records that a message is finished. Returns the offset to store (the next offset to
    /// read) when the low-water mark moved, nil otherwise.
    mutating func finish(_ partition: KafkaTopicPartition, offset: Int64, generation: UInt64) -> Int64? {
        lanes[partition]?.finish(offset: offset, generation: generation)
    }

    /// Messages in flight in these partitions (all partitions when nil).
    func inFlight(in partitions: [KafkaTopicPartition]? = nil) -> Int {
        guard let partitions else { return lanes.values.reduce(0) { $0 + $1.inFlight } }
        return partitions.reduce(0) { $0 + (lanes[$1]?.inFlight ?? 0) }
    }

    /// The first offset not yet finished in each partition that has seen a message since its
    /// assignment: the point the consumer lag is measured from.
    func lowWaterMarks() -> [KafkaTopicPartition: Int64] {
        lanes.compactMapValues { lane in lane.head < lane.offsets.count ? lane.offsets[lane.head] : lane.stored }
    }
}
