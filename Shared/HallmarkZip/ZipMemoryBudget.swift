import Metrics
import Synchronization

/// One memory budget for every zip upload in flight together.
///
/// A read reserves its whole ``ZipUpload/Plan/reservation`` before it inflates anything
/// and keeps it until its MAC is checked. The reservation is the most the read can hold
/// (inflating past a declared size is refused at the first extra byte), so a read never
/// asks for more while holding some: no hold-and-wait, hence no deadlock. A reservation that
/// does not fit waits, first come first served (a large one is not overtaken forever by
/// small ones), until running reads release theirs; each of those finishes in bounded time
/// (inflation is capped, PBKDF2 and HMAC are bounded), so every wait ends. A request larger
/// than the whole budget is refused at once (`ZipError` `.invalid`); configurations are
/// checked so a zip within the cap always fits (``ZipLimits/largestReservation``).
public final class ZipMemoryBudget: Sendable {
    /// Bytes all reservations together may hold.
    public let capacity: Int
    private let state = Mutex(State())
    private let inUse: Meter
    private let peakMeter: Meter
    private let waitsCounter: Counter

    struct State {
        var used = 0
        var peak = 0
        var waits = 0
        var nextID = 0
        var waiters: [Waiter] = []
    }

    struct Waiter {
        let id: Int
        let bytes: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    public init(capacity: Int, service: String) {
        self.capacity = capacity
        let dims = [("service", service)]
        inUse = Meter(label: "hallmark_smileid_zip_memory_bytes", dimensions: dims)
        peakMeter = Meter(label: "hallmark_smileid_zip_memory_peak_bytes", dimensions: dims)
        waitsCounter = Counter(label: "hallmark_smileid_zip_memory_waits_total", dimensions: dims)
    }

    /// Bytes reserved now.
    public var used: Int { state.withLock { $0.used } }
    /// The most ever reserved at once.
    public var peak: Int { state.withLock { $0.peak } }
    /// Reservations that had to wait.
    public var waits: Int { state.withLock { $0.waits } }

    /// Reserves `bytes`, waiting for room when others hold it. Throws `CancellationError`
    /// when the task is cancelled while waiting (nothing is then held).
    public func reserve(_ bytes: Int) async throws -> ZipReservation {
        guard bytes <= capacity else {
            throw ZipError(.invalid, "the upload needs more than the whole \(capacity)-byte zip memory budget")
        }
        let bytes = max(0, bytes)
        let (granted, id): (Bool, Int) = state.withLock { s in
            s.nextID += 1
            guard s.waiters.isEmpty, s.used + bytes <= capacity else { return (false, s.nextID) }
            Self.grant(bytes, in: &s)
            return (true, s.nextID)
        }
        if granted {
            publish()
            return ZipReservation(budget: self, bytes: bytes)
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = state.withLock { s in
                    if Task.isCancelled { return true }
                    s.waits += 1
                    s.waiters.append(Waiter(id: id, bytes: bytes, continuation: continuation))
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let removed: Waiter? = state.withLock { s in
                guard let i = s.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return s.waiters.remove(at: i)
            }
            removed?.continuation.resume(throwing: CancellationError())
            // The head may have been the one blocking others.
            resumeGranted()
        }
        waitsCounter.increment()
        publish()
        return ZipReservation(budget: self, bytes: bytes)
    }

    func release(_ bytes: Int) {
        state.withLock { $0.used -= bytes }
        resumeGranted()
        publish()
    }

    /// Grants waiters in order while the first one fits, and resumes them.
    private func resumeGranted() {
        let granted: [Waiter] = state.withLock { s in
            var granted: [Waiter] = []
            while let first = s.waiters.first, s.used + first.bytes <= capacity {
                Self.grant(first.bytes, in: &s)
                granted.append(s.waiters.removeFirst())
            }
            return granted
        }
        for waiter in granted { waiter.continuation.resume() }
    }

    private static func grant(_ bytes: Int, in s: inout State) {
        s.used += bytes
        s.peak = max(s.peak, s.used)
    }

    private func publish() {
        let (used, peak) = state.withLock { ($0.used, $0.peak) }
        inUse.set(used)
        peakMeter.set(peak)
    }
}

/// Bytes held in a ``ZipMemoryBudget``: given back by ``release()`` (once; later calls do
/// nothing) or, failing that, when the reservation is freed.
public final class ZipReservation: Sendable {
    public let bytes: Int
    private let budget: ZipMemoryBudget
    private let released = Atomic<Bool>(false)

    init(budget: ZipMemoryBudget, bytes: Int) {
        self.budget = budget
        self.bytes = bytes
    }

    public func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        budget.release(bytes)
    }

    deinit { release() }
}
