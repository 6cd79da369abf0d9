import Foundation

/// Restarts the local throwaway cluster (deploy/local/up) with pg_ctl, as the postgres user
/// when running as root. Shared by every test target that restarts the database.
public enum PostgresServerControl {
    public static var dataDirectory: String? {
        ProcessInfo.processInfo.environment["HALLMARK_PG_DATA"].flatMap { $0.isEmpty ? nil : $0 }
    }

    static var pgCtl: String {
        if let explicit = ProcessInfo.processInfo.environment["HALLMARK_PG_CTL"] { return explicit }
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        let newest = versions.compactMap(Int.init).max().map(String.init) ?? "15"
        return "\(root)/\(newest)/bin/pg_ctl"
    }

    public struct Failed: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs pg_ctl on a dispatch thread (it blocks for about a second).
    ///
    /// Refused while other tests share the server (deploy/local/test's parallel pass sets
    /// `HALLMARK_TEST_SHARED=1`): their queries would fail for a reason of ours, not theirs.
    public static func restart() async throws {
        guard ProcessInfo.processInfo.environment["HALLMARK_TEST_SHARED"] != "1" else {
            throw Failed(
                description:
                    "restarting PostgreSQL would break the tests running beside this one: name its suite in deploy/local/test's exclusive suites"
            )
        }
        guard let data = dataDirectory else { throw Failed(description: "HALLMARK_PG_DATA is not set") }
        // Log next to the data folder (as deploy/local/up does), so the server never inherits
        // our output.
        let log = URL(fileURLWithPath: data).deletingLastPathComponent().appendingPathComponent("postgres.log").path
        var arguments = [pgCtl, "-D", data, "-l", log, "-m", "fast", "-w", "-t", "30", "restart"]
        if getuid() == 0 { arguments = ["/usr/sbin/runuser", "-u", "postgres", "--"] + arguments }
        let command = arguments
        let status = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: run(command)) }
        }
        guard status == 0 else { throw Failed(description: "pg_ctl restart exited with \(status)") }
    }

    /// posix_spawn + waitpid: Foundation's `Process.waitUntilExit` can hang on Linux when the
    /// child exits while the waiting thread isn't running a run loop.
    private static func run(_ arguments: [String]) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, arguments[0], &actions, nil, argv, environ) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
    }
}
