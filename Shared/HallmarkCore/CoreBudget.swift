import Foundation

/// The cores this process may use: the fewest of the machine's active cores, the CPUs its
/// affinity allows (`taskset`, a cpuset) and its cgroup's CPU quota rounded up (a
/// container's `--cpus`, a Kubernetes CPU limit).
///
/// `ProcessInfo.activeProcessorCount` counts the machine's cores only, so a pod limited to one
/// CPU on a 64-core node would start 64 PBKDF2 threads that the quota then throttles in turn.
/// Defaults that scale with cores derive from ``cores`` instead.
public enum CoreBudget {
    /// The budget of this process, read once (from `/proc` and `/sys/fs/cgroup`).
    public static let cores: Int = {
        let read = { (path: String) in try? String(contentsOfFile: path, encoding: .utf8) }
        let membership = read("/proc/self/cgroup") ?? ""
        let quotas = quotaFiles(membership: membership).compactMap { files -> Double? in
            switch files {
            case .v2(let path): read(path).flatMap(quota(cpuMax:))
            case .v1(let quotaPath, let periodPath):
                quota(cfsQuota: read(quotaPath) ?? "", period: read(periodPath) ?? "")
            }
        }
        return budget(
            active: ProcessInfo.processInfo.activeProcessorCount,
            allowed: read("/proc/self/status").flatMap(allowedCPUs(status:)), quota: quotas.min())
    }()

    /// The smallest of the three, at least 1; a quota counts as the cores it needs rounded up.
    static func budget(active: Int, allowed: Int?, quota: Double?) -> Int {
        var cores = max(1, active)
        if let allowed, allowed > 0 { cores = min(cores, allowed) }
        if let quota, quota > 0 { cores = min(cores, Int(quota.rounded(.up))) }
        return max(1, cores)
    }

    /// The CPUs in `Cpus_allowed_list:` of `/proc/self/status` (e.g. `0-3,8,10-11` is 7).
    static func allowedCPUs(status: String) -> Int? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") }) else {
            return nil
        }
        var count = 0
        for range in line.dropFirst("Cpus_allowed_list:".count).split(separator: ",") {
            let bounds = range.trimmingCharacters(in: .whitespaces).split(separator: "-").map { Int($0) }
            switch bounds.count {
            case 1: guard bounds[0] != nil else { return nil }; count += 1
            case 2:
                guard let low = bounds[0], let high = bounds[1], high >= low else { return nil }
                count += high - low + 1
            default: return nil
            }
        }
        return count > 0 ? count : nil
    }

    /// cgroup v2 `cpu.max`: `max 100000` is no limit, `150000 100000` is 1.5 cores.
    static func quota(cpuMax: String) -> Double? {
        let fields = cpuMax.split(whereSeparator: \.isWhitespace)
        guard fields.count == 2 else { return nil }
        return quota(cfsQuota: String(fields[0]), period: String(fields[1]))
    }

    /// cgroup v1 `cpu.cfs_quota_us` over `cpu.cfs_period_us`; a quota of -1 (or v2's `max`) is
    /// no limit.
    static func quota(cfsQuota: String, period: String) -> Double? {
        guard let quota = Double(cfsQuota.trimmingCharacters(in: .whitespacesAndNewlines)),
            let period = Double(period.trimmingCharacters(in: .whitespacesAndNewlines)), quota > 0, period > 0
        else { return nil }
        return quota / period
    }

    enum QuotaFiles: Equatable {
        case v2(String)
        case v1(quota: String, period: String)
    }

    /// The files that may hold this process's CPU quota, from `/proc/self/cgroup`: under cgroup
    /// v2 its group's `cpu.max` and every ancestor's (a parent's limit binds too); under v1 the
    /// `cpu` controller's group and the mount's root (a container sees its own group there).
    static func quotaFiles(membership: String, root: String = "/sys/fs/cgroup") -> [QuotaFiles] {
        var files: [QuotaFiles] = []
        for line in membership.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3 else { continue }
            let path = String(parts[2])
            if parts[0] == "0", parts[1].isEmpty {
                var directory = path
                while true {
                    files.append(.v2(root + (directory == "/" ? "" : directory) + "/cpu.max"))
                    guard directory != "/", !directory.isEmpty else { break }
                    directory = (directory as NSString).deletingLastPathComponent
                }
            } else if parts[1].split(separator: ",").contains("cpu") {
                for directory in Set([path, "/"]).sorted() {
                    let base = root + "/cpu" + (directory == "/" ? "" : directory)
                    files.append(.v1(quota: base + "/cpu.cfs_quota_us", period: base + "/cpu.cfs_period_us"))
                }
            }
        }
        return files
    }
}
