import Synchronization

/// The requests of this replica waiting for their answers, by key. Each gets one answer: the
/// one filled in, or nil at its deadline or when the waits end.
final class AnswerWaits<Key: Hashable & Sendable>: Sendable {
    private let slots = Mutex<[Key: AnswerSlot]>([:])

    /// Runs `send`, then waits up to `timeout` for the answer filled in for `key`; nil when none
    /// came in time. The slot is in place before `send` runs, so no answer is missed.
    func request(_ key: Key, timeout: Duration, send: () async throws -> Void) async throws -> [UInt8]? {
        let slot = AnswerSlot()
        slots.withLock { $0[key] = slot }
        defer { slots.withLock { s in if s[key] === slot { s[key] = nil } } }
        try await send()
        let timer = Task {
            try? await Task.sleep(for: timeout)
            slot.fill(nil)
        }
        defer { timer.cancel() }
        return await slot.value()
    }

    /// Hands `answer` to the request waiting for `key`, if one is.
    func fill(_ key: Key, with answer: [UInt8]) {
        slots.withLock { $0.removeValue(forKey: key) }?.fill(answer)
    }

    /// Those of `keys` that a request waits for; every waiting key when nil.
    func waiting(among keys: [Key]? = nil) -> [Key] {
        slots.withLock { s in keys.map { $0.filter { s[$0] != nil } } ?? Array(s.keys) }
    }

    /// Answers every waiting request with nil (nothing more will be heard).
    func endAll() {
        let left = slots.withLock { s in
            defer { s = [:] }
            return Array(s.values)
        }
        left.forEach { $0.fill(nil) }
    }
}
