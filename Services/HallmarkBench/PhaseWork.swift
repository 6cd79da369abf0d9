import Foundation
import HallmarkKafka
import HallmarkPostgres
import Logging

/// What a bench phase cost everything it touched, per message (#55): the messages produced on
/// each topic, PostgreSQL's commits and rows (``DatabaseWork``), and the CPU of every process
/// (the broker, PostgreSQL, each service, the bench itself). A reading before and one after
/// the phase; ``since(_:)`` is the phase's.
struct PhaseWork: Sendable {
    /// Messages on each topic so far (the sum of its partitions' end offsets).
    var messages: [String: Int64]
    var database: DatabaseWork
    /// CPU seconds so far of each process by name.
    var cpu: [String: Double]

    /// What is measured and where.
    struct Meter: Sendable {
        let pool: PostgresPool
        let schemas: [String]
        let kafka: KafkaConfiguration
        let logger: Logger
        let topics: [String]
        /// The services' processes, by the name printed.
        var services: [(name: String, process: BenchProcess)]

        /// The reading before a phase: PostgreSQL's statistics once they are settled
        /// (``DatabaseWork``), the offsets, then the CPU last, so the seconds the others take
        /// are not the phase's.
        func begin() async throws -> PhaseWork {
            let database = try await DatabaseWork.settled(pool, schemas: schemas)
            let messages = try await TopicEnds.read(topics, kafka: kafka, logger: logger)
            return PhaseWork(messages: messages, database: database, cpu: cpu())
        }

        /// The reading after a phase: the CPU first, then the offsets and PostgreSQL's
        /// settled statistics.
        func end() async throws -> PhaseWork {
            let cpu = cpu()
            let messages = try await TopicEnds.read(topics, kafka: kafka, logger: logger)
            return PhaseWork(
                messages: messages, database: try await DatabaseWork.settled(pool, schemas: schemas), cpu: cpu)
        }

        private func cpu() -> [String: Double] {
            var cpu = SystemProcesses.cpuSeconds(named: ["tansu": "broker", "postgres": "PostgreSQL"])
            for (name, process) in services { cpu[name] = process.cpuSeconds }
            cpu["bench"] = ProcessCPU.seconds()
            return cpu
        }

        /// The work of `phase`, per its messages.
        func measure<T>(_ phase: () async throws -> T) async throws -> (T, PhaseWork) {
            let before = try await begin()
            let result = try await phase()
            return (result, try await end().since(before))
        }
    }

    /// The work done since `earlier`.
    func since(_ earlier: PhaseWork) -> PhaseWork {
        PhaseWork(
            messages: messages.merging(earlier.messages.mapValues { -$0 }, uniquingKeysWith: +),
            database: database.since(earlier.database),
            cpu: cpu.merging(earlier.cpu.mapValues { -$0 }, uniquingKeysWith: +))
    }

    /// All messages produced, on every topic metered.
    var messagesProduced: Int64 { messages.values.reduce(0, +) }

    /// CPU milliseconds of all processes together.
    var cpuMilliseconds: Double { cpu.values.reduce(0, +) * 1000 }

    /// Three lines per `count` messages: messages by topic, PostgreSQL, CPU-ms by process.
    /// `label` names the topics (the bench's run prefix taken off).
    func summary(per count: Int, label: (String) -> String) -> [String] {
        let n = Double(max(count, 1))
        let topics = messages.filter { $0.value > 0 }.sorted { $0.value > $1.value }.map {
            "\(label($0.key)) \(Self.format(Double($0.value) / n))"
        }
        let processes = cpu.sorted { $0.value > $1.value }.map { "\($0.key) \(Self.format($0.value * 1000 / n))" }
        return [
            "messages \(Self.format(Double(messagesProduced) / n)): \(topics.joined(separator: ", "))",
            "PostgreSQL \(database.summary(per: count))",
            "CPU-ms \(Self.format(cpuMilliseconds / n)): \(processes.joined(separator: ", "))",
        ]
    }

    /// Prints ``summary(per:label:)`` on one line for `phase`, the bench topics named without
    /// their run prefix.
    func printPerBundle(_ count: Int, _ phase: String) {
        let lines = summary(per: count) { $0.split(separator: ".").dropFirst(3).joined(separator: ".") }
        printNow("per bundle, \(phase): " + lines.joined(separator: "; "))
    }

    /// A figure per message: two decimals below 10, whole above.
    static func format(_ value: Double) -> String {
        value >= 10 ? String(Int(value.rounded())) : String((value * 100).rounded() / 100)
    }
}

/// CPU time of processes found by name in `/proc` (the broker and PostgreSQL, which the bench
/// did not start). A process that exited during a phase takes its CPU with it: PostgreSQL's
/// backends live as long as the services' pools, so they are counted.
enum SystemProcesses {
    /// CPU seconds so far, summed by the printed name of each `/proc/<pid>/comm` in `names`.
    static func cpuSeconds(named names: [String: String]) -> [String: Double] {
        var out: [String: Double] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), let comm = try? String(contentsOfFile: "/proc/\(entry)/comm", encoding: .utf8),
                let name = names[comm.trimmingCharacters(in: .whitespacesAndNewlines)],
                let seconds = ProcessCPU.seconds(ofProcess: pid)
            else { continue }
            out[name, default: 0] += seconds
        }
        return out
    }
}
