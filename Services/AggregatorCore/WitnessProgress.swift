import Foundation
import Synchronization

/// How far the witnesses have got with the log, for the `hallmark_aggregator_witnessed_tree_size`
/// and `hallmark_aggregator_checkpoint_unwitnessed_seconds` gauges (and the alert that fires when
/// the second passes the policy time, `HALLMARK_AGGREGATOR_WITNESS_DEADLINE_SECONDS`).
///
/// Each ``WitnessCosigner`` round looks at the latest checkpoint with its cosignatures. When they
/// satisfy the policy, the log is witnessed up to its size and nothing waits. When not, the wait
/// runs from the signing time of the first checkpoint seen unwitnessed since the last witnessed
/// one: newer checkpoints made meanwhile do not restart it. A replica that starts while the log
/// waits counts from the latest checkpoint's signing time (the earlier ones' it never saw), so
/// it can only under-report a wait that began before it started.
struct WitnessProgress: Sendable, Equatable {
    /// The newest witnessed checkpoint's size this replica has seen; 0 before any.
    private(set) var witnessedSize: UInt64 = 0
    /// When the checkpoints waiting for their witnesses began to wait; nil when none waits.
    private(set) var waitingSince: Date?

    /// Takes the latest checkpoint's size, signing time and whether it is witnessed.
    mutating func observe(size: UInt64, signedAt: Date, witnessed: Bool) {
        if witnessed {
            witnessedSize = max(witnessedSize, size)
            waitingSince = nil
        } else if size > witnessedSize {
            waitingSince = min(waitingSince ?? signedAt, signedAt)
        }
    }

    /// How long a checkpoint has waited for its witnesses as of `now`; 0 when none waits.
    func unwitnessedSeconds(now: Date) -> Double {
        waitingSince.map { max(0, now.timeIntervalSince($0)) } ?? 0
    }
}

extension WitnessProgress {
    /// One replica's progress, shared by its cosigner's rounds.
    final class Cell: Sendable {
        let state = Mutex(WitnessProgress())
    }
}
