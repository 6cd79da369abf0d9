import Synchronization

/// What a process's stages say about their liveness, gathered for ``HealthFile``.
///
/// A stage registers a source of its ``StageState`` while it runs. The process is healthy
/// when every stage's consumer thread went round recently and every stage with messages in
/// flight finished one recently: a deadlocked poll thread, or a stage holding messages and
/// finishing none (a database that keeps failing, say), both show, within the stall limit, as
/// a named problem. One stuck key in a stage that otherwise flows is not one (a restart would
/// not cure it): its partition's lag shows it.
public final class HealthMonitor: Sendable {
    /// One stage's liveness at a check.
    public struct StageState: Sendable, Equatable {
        /// The stage's consumer group.
        public var name: String
        /// Since its consumer's poll thread last went round; nil before it started.
        public var sinceLastPoll: Duration?
        /// Messages taken and not finished.
        public var inFlight: Int
        /// Since it last finished a message (or started).
        public var sinceProgress: Duration

        public init(name: String, sinceLastPoll: Duration?, inFlight: Int, sinceProgress: Duration) {
            self.name = name
            self.sinceLastPoll = sinceLastPoll
            self.inFlight = inFlight
            self.sinceProgress = sinceProgress
        }
    }

    private struct Entry {
        var source: @Sendable () -> StageState
        var verdict: (@Sendable (_ stalled: Bool) -> Void)?
    }

    private struct Sources {
        var next = 0
        var byID: [Int: Entry] = [:]
    }
    private let sources = Mutex(Sources())

    public init() {}

    /// Adds a stage's state; the id it returns takes it away again (``unregister(_:)``).
    /// `verdict`, if given, hears at every ``check(stallLimit:)`` whether the stage is stalled
    /// (a stage sets its `hallmark_stage_stalled` gauge with it).
    public func register(
        _ source: @escaping @Sendable () -> StageState, verdict: (@Sendable (_ stalled: Bool) -> Void)? = nil
    ) -> Int {
        sources.withLock { s in
            defer { s.next += 1 }
            s.byID[s.next] = Entry(source: source, verdict: verdict)
            return s.next
        }
    }

    public func unregister(_ id: Int) {
        _ = sources.withLock { $0.byID.removeValue(forKey: id) }
    }

    /// Every registered stage's state now, in registration order.
    public func states() -> [StageState] {
        entries().map { $0.source() }
    }

    /// What is wrong now (``problems(_:stallLimit:)``), each stage's verdict told as well: the
    /// health file and the metrics snapshot both check through here, so they never disagree.
    public func check(stallLimit: Duration) -> [Problem] {
        entries().flatMap { entry in
            let found = Self.problems([entry.source()], stallLimit: stallLimit)
            entry.verdict?(!found.isEmpty)
            return found
        }
    }

    private func entries() -> [Entry] {
        // The sources run outside the lock: they take the stages' own locks.
        sources.withLock { $0.byID.sorted { $0.key < $1.key }.map(\.value) }
    }

    /// One thing wrong with a stage.
    public struct Problem: Sendable, Equatable {
        public enum Kind: Sendable, Equatable { case notPolling, noProgress }
        public var stage: String
        public var kind: Kind
        /// One line for people: the stage, what is wrong, for how long.
        public var description: String
    }

    /// What is wrong with `states`; empty when healthy.
    public static func problems(_ states: [StageState], stallLimit: Duration) -> [Problem] {
        states.flatMap { s -> [Problem] in
            var found: [Problem] = []
            if let poll = s.sinceLastPoll, poll > stallLimit {
                found.append(
                    Problem(
                        stage: s.name, kind: .notPolling,
                        description: "\(s.name): the consumer has not polled for \(seconds(poll)) s"))
            }
            if s.inFlight > 0, s.sinceProgress > stallLimit {
                found.append(
                    Problem(
                        stage: s.name, kind: .noProgress,
                        description: "\(s.name): \(s.inFlight) in flight, none finished for \(seconds(s.sinceProgress)) s"))
            }
            return found
        }
    }

    static func seconds(_ d: Duration) -> Int64 { d.components.seconds }
}
