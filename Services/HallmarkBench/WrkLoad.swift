import Foundation

/// GETs by Debian's `wrk` (an event-loop load generator in C, `deploy/local/setup` installs it):
/// for the read phases whose target is tens of thousands of requests per second, where a
/// thread per connection would take the cores the server is measured on.
struct WrkLoad {
    /// Where `wrk` is, if installed.
    static var executable: URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return (path.split(separator: ":").map(String.init) + ["/usr/bin"]).lazy
            .map { URL(fileURLWithPath: $0).appendingPathComponent("wrk") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// What wrk counted.
    struct Outcome {
        var requests: Int
    }

    let wrk: URL
    let folder: URL

    /// GETs of `paths` (each thread cycles through all of them from its own start) on
    /// `connections` keep-alive connections over `threads` threads for `seconds`. Every answer
    /// must be 2xx: a socket error or another status throws.
    func get(port: UInt16, paths: [String], connections: Int, threads: Int, seconds: Int) throws -> Outcome {
        let script = folder.appendingPathComponent("paths-\(UUID().uuidString).lua")
        try Self.script(paths).write(to: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: script) }
        let process = Process()
        process.executableURL = wrk
        process.arguments = [
            "-t", String(threads), "-c", String(connections), "-d", "\(seconds)s", "-s", script.path,
            "http://127.0.0.1:\(port)",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // wrk inherits the blocked SIGINT and SIGTERM of the thread that spawned it.
        BenchChildren.add(process.processIdentifier, stopWith: SIGKILL)
        defer { BenchChildren.remove(process.processIdentifier) }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("wrk failed: \(text)") }
        return try Self.parse(text)
    }

    /// A Lua script whose requests are made once, in `init`, and then only handed out.
    static func script(_ paths: [String]) -> String {
        let list = paths.map { "\"\($0)\"" }.joined(separator: ",\n")
        return """
            local paths = {
            \(list)
            }
            local requests = {}
            local n = 0
            function init(args)
              for i, p in ipairs(paths) do requests[i] = wrk.format("GET", p) end
              n = math.random(#requests) - 1
            end
            function request()
              n = n % #requests + 1
              return requests[n]
            end
            """
    }

    /// The totals of wrk's report; throws on socket errors or a status other than 2xx.
    static func parse(_ text: String) throws -> Outcome {
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        if let errors = lines.first(where: { $0.hasPrefix("Socket errors:") }) {
            throw BenchError("wrk: \(errors)")
        }
        if let statuses = lines.first(where: { $0.hasPrefix("Non-2xx or 3xx responses:") }) {
            throw BenchError("wrk: \(statuses)")
        }
        guard let total = lines.first(where: { $0.contains(" requests in ") }),
            let requests = Int(total.prefix(while: { $0 != " " }))
        else { throw BenchError("wrk's report cannot be read: \(text)") }
        return Outcome(requests: requests)
    }
}
