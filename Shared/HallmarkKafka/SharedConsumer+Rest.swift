import HallmarkCore

extension SharedConsumer.Reader {
    /// On the poll thread, at every turn of its loop: moves the reader's rest on (``FetchRest``:
    /// pause, check the ends, wake) and returns the longest the thread may block before the
    /// rest's next move, in milliseconds.
    ///
    /// A rest pauses through librdkafka alone, not as the reader's own pause: a reader's own
    /// pause makes the poll thread look every 5 ms, and a resting reader must cost nothing. Its
    /// wake-up resumes as the reader's resume does, which has the poll thread wake librdkafka's
    /// broker thread with a `ListOffsets` request.
    func restTurn(now: UInt64) -> Int32 {
        enum Step { case none, pause([KafkaTopicPartition]), check([KafkaTopicPartition: Int64]) }
        let step = state.withLock { s -> Step in
            guard !s.closing else { return .none }
            var action: FetchRest.Action?
            if member.wakesOnProduce, s.rest.isResting {
                let produced = ProduceClock.last.load(ordering: .relaxed)
                if produced > s.rest.lastActivity { action = s.rest.active(at: produced) }
            }
            if action == nil { action = s.rest.tick(at: now) }
            switch action {
            case .pause:
                let partitions = s.assigned.subtracting(s.pausedByReader).subtracting(s.pausedByBuffer)
                s.pausedByRest = partitions
                native.setPausedNative(Array(partitions), true)
                return .pause(Array(partitions))
            case .check:
                return .check(s.restedEnds)
            case .resume:
                let woken = s.takeRested()
                native.setPaused(s.unpaused(woken), false)
                return .none
            case nil:
                return .none
            }
        }
        switch step {
        case .none:
            break
        case .pause(let partitions):
            // Something fetched in the last moment before the pause may be unread yet: then the
            // rest ends before it begins.
            let ends = native.endOffsets(partitions)
            let unread = ends.map { native.hasUnread($0) } ?? true
            state.withLock { s in
                if let ends, !unread {
                    s.restedEnds = ends
                } else {
                    checked(moved: true, &s)
                }
            }
        case .check(let before):
            let ends = native.endOffsets(Array(before.keys))
            state.withLock { s in checked(moved: ends != before, &s) }
        }
        return state.withLock { s in
            var limit: Int32 = 100
            // This process producing wakes it: look at the clock often.
            if s.rest.isResting && member.wakesOnProduce { limit = 20 }
            return s.closing ? limit : s.rest.millisecondsToDeadline(from: now, atMost: limit)
        }
    }

    /// A check's answer (an end moved, or the check failed): the rest wakes, or waits longer.
    private func checked(moved: Bool, _ s: inout State) {
        guard !s.closing, s.rest.checked(moved: moved, at: Uptime.now()) == .resume else { return }
        let woken = s.takeRested()
        native.setPaused(s.unpaused(woken), false)
    }
}

extension SharedConsumer.Reader.State {
    /// The partitions its rest paused, which it no longer holds.
    mutating func takeRested() -> [KafkaTopicPartition] {
        defer {
            pausedByRest = []
            restedEnds = [:]
        }
        return Array(pausedByRest)
    }

    /// Of these partitions, those nothing else holds paused: the reader, its full buffer, its
    /// rest.
    func unpaused(_ partitions: [KafkaTopicPartition]) -> [KafkaTopicPartition] {
        partitions.filter { !pausedByReader.contains($0) && !pausedByBuffer.contains($0) && !pausedByRest.contains($0) }
    }

    /// Whether the reader rests (for tests).
    var isResting: Bool { rest.isResting }
}
