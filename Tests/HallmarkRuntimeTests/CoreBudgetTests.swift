import Foundation
import Testing

@testable import HallmarkCore

/// The cores a process may use: affinity and cgroup quotas (v1 and v2) narrow the machine's.
@Suite(.timeLimit(.minutes(1)))
struct CoreBudgetTests {
    @Test func readsTheAffinityList() {
        #expect(CoreBudget.allowedCPUs(status: "Name:\tx\nCpus_allowed_list:\t0-3,8,10-11\nMems:\t0\n") == 7)
        #expect(CoreBudget.allowedCPUs(status: "Cpus_allowed_list:\t1\n") == 1)
        #expect(CoreBudget.allowedCPUs(status: "Cpus_allowed_list:\t3-1\n") == nil)
        #expect(CoreBudget.allowedCPUs(status: "Cpus_allowed:\tff\n") == nil)
    }

    @Test func readsQuotas() {
        #expect(CoreBudget.quota(cpuMax: "max 100000\n") == nil)
        #expect(CoreBudget.quota(cpuMax: "150000 100000\n") == 1.5)
        #expect(CoreBudget.quota(cfsQuota: "-1\n", period: "100000\n") == nil)
        #expect(CoreBudget.quota(cfsQuota: "50000\n", period: "100000\n") == 0.5)
    }

    @Test func theSmallestLimitWinsAndAQuotaRoundsUp() {
        #expect(CoreBudget.budget(active: 64, allowed: nil, quota: nil) == 64)
        #expect(CoreBudget.budget(active: 64, allowed: 8, quota: nil) == 8)
        #expect(CoreBudget.budget(active: 64, allowed: 8, quota: 1.5) == 2)
        #expect(CoreBudget.budget(active: 64, allowed: 8, quota: 0.25) == 1)
        #expect(CoreBudget.budget(active: 2, allowed: 8, quota: 16) == 2)
        #expect(CoreBudget.budget(active: 0, allowed: nil, quota: nil) == 1)
    }

    @Test func findsTheQuotaFilesOfBothHierarchies() {
        let v2 = CoreBudget.quotaFiles(membership: "0::/kubepods/pod1/c1\n", root: "/cg")
        #expect(
            v2 == [
                .v2("/cg/kubepods/pod1/c1/cpu.max"), .v2("/cg/kubepods/pod1/cpu.max"), .v2("/cg/kubepods/cpu.max"),
                .v2("/cg/cpu.max"),
            ])
        let v1 = CoreBudget.quotaFiles(membership: "4:memory:/x\n3:cpu,cpuacct:/docker/abc\n0::/\n", root: "/cg")
        #expect(v1.contains(.v1(quota: "/cg/cpu/docker/abc/cpu.cfs_quota_us", period: "/cg/cpu/docker/abc/cpu.cfs_period_us")))
        #expect(v1.contains(.v1(quota: "/cg/cpu/cpu.cfs_quota_us", period: "/cg/cpu/cpu.cfs_period_us")))
        #expect(v1.contains(.v2("/cg/cpu.max")))
    }

    /// On this machine: never more than the active cores, and no more than the affinity allows.
    @Test func thisProcessGetsABudgetWithinItsAffinity() throws {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let allowed = try #require(CoreBudget.allowedCPUs(status: status))
        #expect(CoreBudget.cores >= 1)
        #expect(CoreBudget.cores <= min(allowed, ProcessInfo.processInfo.activeProcessorCount))
    }
}
