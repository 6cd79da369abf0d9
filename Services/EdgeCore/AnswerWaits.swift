import Synchronization

/// The requests of this replica waiting for their answers, by key. Each gets one answer: the
/// one filled in, or nil at its deadline or when the waits end.
final class AnswerWaits<Key: Hashable & Sendable>: Sendable {
    private struct State {
        var slots: [Key: AnswerSlot] = [:]
        /// Keys whose answer a caller is about to fill (``claim(_:)``): others leave them be.
        var claimed: Set<Key> = []
    }
    private let state = Mutex(State())

    /// Runs `send`, then waits up to `timeout` for the answer filled in for `key`; nil when none
    /// came in time. The slot is in place before `send` runs, so no answer is missed.
    func request(_ key: Key, timeout: Duration, send: () async throws -> Void) async throws -> [UInt8]? {
        let slot = AnswerSlot()
        state.withLock { $0.slots[key] = slot }
        defer { state.withLock { s in if s.slots[key] === slot { s.slots[key] = nil } } }
        try await send()
        let timer = Task {
            try? await Task.sleep(for: timeout)
            slot.fill(nil)
        }
        defer { timer.cancel() }
        return await slot.value()
    }

    /// The slot `key`'s answer is filled into, in place from now on, for a caller that keeps
    /// its own deadline (filling the slot with nil) and ends the wait with ``forget(_:_:)``.
    func expect(_ key: Key) -> AnswerSlot {
        let slot = AnswerSlot()
        state.withLock { $0.slots[key] = slot }
        return slot
    }

    /// Ends the wait of `slot` for `key`.
    func forget(_ key: Key, _ slot: AnswerSlot) {
        state.withLock { s in if s.slots[key] === slot { s.slots[key] = nil } }
    }

    /// Hands `answer` to the request waiting for `key`, if one is.
    func fill(_ key: Key, with answer: [UInt8]) {
        state.withLock { $0.slots.removeValue(forKey: key) }?.fill(answer)
    }

    /// Those of `keys` that a request waits for, marked as claimed: ``waiting(among:including:)``
    /// leaves them out until they are released, so an answer the caller fills itself is not
    /// also fetched for them by another path.
    func claim(_ keys: [Key]) -> [Key] {
        state.withLock { s in
            let waiting = keys.filter { s.slots[$0] != nil }
            s.claimed.formUnion(waiting)
            return waiting
        }
    }

    /// Ends the claim on `keys`.
    func release(_ keys: [Key]) {
        guard !keys.isEmpty else { return }
        state.withLock { s in keys.forEach { s.claimed.remove($0) } }
    }

    /// Those of `keys` that a request waits for and nobody claimed (claimed ones too when
    /// `including`); every waiting key when nil.
    func waiting(among keys: [Key]? = nil, including claimed: Bool = false) -> [Key] {
        state.withLock { s in
            keys.map { $0.filter { s.slots[$0] != nil && (claimed || !s.claimed.contains($0)) } } ?? Array(s.slots.keys)
        }
    }

    /// Answers every waiting request with nil (nothing more will be heard).
    func endAll() {
        let left = state.withLock { s in
            defer { s.slots = [:] }
            return Array(s.slots.values)
        }
        left.forEach { $0.fill(nil) }
    }
}
