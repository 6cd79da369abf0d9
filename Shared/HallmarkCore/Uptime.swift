import Dispatch

/// Stamps on the monotonic uptime clock, in nanoseconds, for "how long since" checks kept in
/// atomics (a consumer's last poll, a stage's last finished message). Never goes backwards
/// and ignores changes to the wall clock.
public enum Uptime {
    /// Now, in nanoseconds of uptime.
    public static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Since a stamp of ``now()``; zero for a stamp not yet in the past.
    public static func since(_ stamp: UInt64) -> Duration {
        let now = now()
        return .nanoseconds(Int64(now > stamp ? now - stamp : 0))
    }
}
