import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A program that a test runs to its end: `posix_spawn`, then `waitpid` on a thread of its own.
///
/// Not Foundation's `Process`: on Linux its `waitUntilExit()` can miss a child's exit and wait
/// for ever. A test run hung so (tmux's client left a zombie nobody reaped), and no
/// `.timeLimit` ended it, since a blocked thread cannot be cancelled. Here the wait never
/// blocks the cooperative pool and ends at a deadline, killing the program.
public enum Subprocess {
    /// How a program ended and what it wrote.
    public struct Result: Sendable {
        /// The exit status, or 128 + the signal that ended the program.
        public let status: Int32
        /// Standard output and standard error together.
        public let output: String
        /// Whether the program outlived its timeout and was killed.
        public let timedOut: Bool
    }

    /// The program could not be started.
    public struct SpawnError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs `executable` with `arguments` in `directory` (the test's own when nil), with
    /// `environment` (the test's own when nil), until it exits or `timeout` passes.
    ///
    /// Output goes to a file, never a pipe: a daemon the program starts (tmux's server) inherits
    /// the descriptors and would hold a pipe open for ever.
    public static func run(
        _ executable: String, _ arguments: [String], in directory: String? = nil,
        environment: [String: String]? = nil, timeout: Duration = .seconds(120)
    ) async throws -> Result {
        let outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("subprocess-\(UUID()).out").path
        defer { unlink(outputFile) }
        let pid = try spawn(executable, arguments, directory: directory, environment: environment, output: outputFile)
        let (status, timedOut) = await withCheckedContinuation { continuation in
            // A plain thread: `waitpid` blocks, which the cooperative pool must never do.
            Thread.detachNewThread { continuation.resume(returning: wait(for: pid, timeout: timeout)) }
        }
        let output = (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? ""
        return Result(status: status, output: output, timedOut: timedOut)
    }

    private static func spawn(
        _ executable: String, _ arguments: [String], directory: String?,
        environment: [String: String]?, output: String
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Glibc's posix_spawn_file_actions_addchdir_np is not visible to Swift: env changes
        // the directory and then execs the program.
        let command = directory.map { ["/usr/bin/env", "--chdir=\($0)", executable] } ?? [executable]

        let argv = (command + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { envp?.forEach { free($0) } }

        // The test process blocks or ignores signals of its own (SIGTERM among them); the
        // program starts with none blocked and every signal at its default.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var pid: pid_t = 0
        let result =
            envp.map { posix_spawn(&pid, command[0], &actions, &attributes, argv, $0) }
            ?? posix_spawn(&pid, command[0], &actions, &attributes, argv, environ)
        guard result == 0 else {
            throw SpawnError(description: "cannot start \(executable): \(String(cString: strerror(result)))")
        }
        return pid
    }

    /// Reaps `pid`, killing it at the deadline: its status (128 + signal if a signal ended it).
    private static func wait(for pid: pid_t, timeout: Duration) -> (Int32, Bool) {
        let deadline = ContinuousClock.now + timeout
        var status: Int32 = 0
        var timedOut = false
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { break }
            if reaped == -1 && errno != EINTR { return (-1, timedOut) }
            if !timedOut && ContinuousClock.now >= deadline {
                kill(pid, SIGKILL)
                timedOut = true
            }
            usleep(5_000)
        }
        let signal = status & 0x7f
        return (signal == 0 ? (status >> 8) & 0xff : 128 + signal, timedOut)
    }
}
