import Foundation

/// This process's CPU time, for benches that report how many cores a run used.
enum ProcessCPU {
    /// User + system CPU seconds so far.
    static func seconds() -> Double {
        var usage = rusage()
        #if os(Linux)
            getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return s(usage.ru_utime) + s(usage.ru_stime)
    }

    /// User + system CPU seconds of the calling thread so far: what an in-process loop costs,
    /// whatever else the machine runs meanwhile.
    static func threadSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// User + system CPU seconds of process `pid` so far, from `/proc/<pid>/stat`; nil where it
    /// cannot be read (gone, or not Linux).
    static func seconds(ofProcess pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after the command name; utime and stime are the 14th and 15th overall.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

/// The whole machine's CPU time (Linux `/proc/stat`), to tell how much of the cores went to
/// processes other than the one measured (the broker, PostgreSQL).
struct MachineCPU {
    let busy: Double
    let total: Double

    /// Now; nil where `/proc/stat` is not available.
    static func now() -> MachineCPU? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") })
        else { return nil }
        // user nice system idle iowait irq softirq steal …
        let v = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard v.count >= 8 else { return nil }
        let idle = v[3] + v[4]
        let total = v[0..<8].reduce(0, +)
        let tick = Double(sysconf(Int32(_SC_CLK_TCK)))
        return MachineCPU(busy: (total - idle) / tick, total: total / tick)
    }

    /// Busy CPU seconds between two snapshots.
    static func busySeconds(from a: MachineCPU?, to b: MachineCPU?) -> Double? {
        guard let a, let b else { return nil }
        return b.busy - a.busy
    }
}
