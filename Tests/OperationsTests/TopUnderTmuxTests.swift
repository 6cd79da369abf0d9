import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import HallmarkSubprocess
import HallmarkTestSupport
import Logging
import Testing

/// A tmux session running `hallmark top` on topics of its own.
final class TopSession: Sendable {
    let id = String(UUID().uuidString.prefix(8)).lowercased()
    var name: String { "hallmark-top-\(id)" }
    var input: String { "test.top.\(id).in" }
    var output: String { "test.top.\(id).out" }
    var rejected: String { "test.top.\(id).rejected" }
    var metrics: String { "test.top.\(id).metrics" }
    var security: String { "test.top.\(id).security" }
    var statusFile: URL { FileManager.default.temporaryDirectory.appendingPathComponent("hallmark-top-\(id).status") }
    let kafka: KafkaConfiguration
    let producer: KafkaProducer

    init() async throws {
        kafka = try KafkaConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
        producer = try KafkaProducer(configuration: kafka, logger: Logger(label: "top-test"))
        try await KafkaAdmin(configuration: kafka, logger: Logger(label: "top-test"))
            .createTopics([input, output, rejected, metrics, security], partitions: 2)
    }

    /// Starts `hallmark top` in a detached tmux session.
    func startTop() async throws {
        let binary = ServiceProcess.binaryDirectory.appendingPathComponent("hallmark").path
        var arguments = ["new-session", "-d", "-s", name, "-x", "100", "-y", "40"]
        let environment = ServiceProcess.inheritedEnvironment.merging([
            "HALLMARK_METRICS_TOPIC": metrics, "HALLMARK_SECURITY_TOPIC": security, "TERM": "xterm-256color",
        ]) { _, new in new }
        for (key, value) in environment where key.hasPrefix("HALLMARK_") || key == "LD_LIBRARY_PATH" || key == "TERM" {
            arguments += ["-e", "\(key)=\(value)"]
        }
        // The shell in the pane writes top's exit status where the test reads it.
        arguments += [binary + " top --interval 0.25; echo $? >" + statusFile.path]
        let result = try await tmux(arguments)
        try #require(result.status == 0, "tmux: \(result.output)")
    }

    func screen() async throws -> [String] {
        try await tmux(["capture-pane", "-p", "-t", name]).output.split(separator: "\n", omittingEmptySubsequences: false).map(
            String.init)
    }

    /// `hallmark top`'s exit status: nil while it runs.
    func exitStatus() -> Int32? {
        guard let text = try? String(contentsOf: statusFile, encoding: .utf8) else { return nil }
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    func close() async {
        _ = try? await tmux(["kill-session", "-t", name])
        try? FileManager.default.removeItem(at: statusFile)
        await producer.close()
    }

    @discardableResult
    func tmux(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let result = try await Subprocess.run("/usr/bin/tmux", arguments, timeout: .seconds(30))
        return (result.status, result.output)
    }

    /// Waits up to 20 s for `hallmark top` to exit; its status, or nil if it did not.
    func waitForExit() async throws -> Int32? {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if let status = exitStatus() { return status }
            try await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }

    /// Polls the screen until `condition` holds for it.
    func waitForScreen(
        _ what: String, timeout: Duration = .seconds(90),
        _ condition: ([String]) -> Bool
    ) async throws -> [String] {
        let deadline = ContinuousClock.now + timeout
        var last: [String] = []
        while ContinuousClock.now < deadline {
            last = try await screen()
            if condition(last) { return last }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw HarnessError("screen never showed \(what); last screen:\n\(last.joined(separator: "\n"))")
    }
}

/// `hallmark top` used as a person uses it: in a terminal (tmux, 100 columns wide so a line
/// over 80 would show), against a live probe stage on the real broker. The numbers on screen
/// must match the traffic sent; `q` and Ctrl-C must end it with status 0.
@Suite("hallmark top under tmux", .serialized, .timeLimit(.minutes(4)))
struct TopUnderTmuxTests {
    /// The row of an instance: SERVICE INSTANCE IN/S OUT/S P50ms P99ms LAG TOTAL REJ.
    static func row(_ instance: String, in screen: [String]) -> [String]? {
        screen.lazy.map { $0.split(separator: " ").map(String.init) }.first { $0.count == 9 && $0[1] == instance }
    }

    @Test func showsTheTrafficSentAndQuitsOnQ() async throws {
        let s = try await TopSession()
        defer { Task { await s.close() } }
        let instance = "probe-\(s.id)"
        let probe = try ServiceProcess(
            "hallmark", arguments: ["probe"], name: instance,
            environment: [
                "HALLMARK_PROBE_INPUT": s.input, "HALLMARK_PROBE_OUTPUT": s.output, "HALLMARK_REJECTED_TOPIC": s.rejected,
                "HALLMARK_METRICS_TOPIC": s.metrics, "HALLMARK_METRICS_INTERVAL_MS": "500", "HALLMARK_INSTANCE": instance,
                "HALLMARK_PROBE_DATABASE": "0", "HALLMARK_GROUP_ID": "test-top-\(s.id)", "HALLMARK_LOG_LEVEL": "info",
            ])
        try await probe.waitForLog("stage started")
        try await s.startTop()
        _ = try await s.waitForScreen("the probe's row") { Self.row(instance, in: $0) != nil }

        // 200 requests over about 2 s, so the rates show, then 3 poison messages.
        let sent = 200
        for i in 0..<sent {
            let body =
                #"{"schema":"hallmark.probe.request.v1","id":"\#(MessageID.random())","produced_at":"\#(Timestamp.now().text)","n":\#(i)}"#
            try await s.producer.send(topic: s.input, key: Array("k\(i % 8)".utf8), value: Array(body.utf8))
            if i % 20 == 19 { try await Task.sleep(for: .milliseconds(200)) }
        }
        for poison in ["{not json", "[]", "{\"schema\":"] {
            try await s.producer.send(topic: s.input, key: nil, value: Array(poison.utf8))
        }
        let event = Message(
            SecurityEvent(
                service: "signer", instance: "signer-x", event: .badMAC, severity: .warning, partnerID: "partner-\(s.id)"))
        try await s.producer.send(topic: s.security, key: nil, value: JSONCoding.encode(event))

        var sawRate = false
        let screen = try await s.waitForScreen("\(sent) processed and 3 rejected") { screen in
            if let row = Self.row(instance, in: screen), let out = Double(row[3]), out > 0 { sawRate = true }
            guard let row = Self.row(instance, in: screen) else { return false }
            return row[7] == "\(sent)" && row[8] == "3" && screen.contains { $0.contains("partner-\(s.id)") }
        }
        #expect(sawRate, "OUT/S never showed a rate above 0 while the traffic ran")
        #expect(screen.contains { $0.contains(instance) && $0.contains("invalid_json 3") }, "\(screen.joined(separator: "\n"))")
        #expect(screen.contains { $0.contains("bad_mac") && $0.contains("warning") })
        #expect(
            screen.allSatisfy { $0.count <= 80 },
            "a line over 80 columns:\n\(screen.filter { $0.count > 80 }.joined(separator: "\n"))")

        try await s.tmux(["send-keys", "-t", s.name, "q"])
        let status = try await s.waitForExit()
        #expect(status == 0, "hallmark top did not exit 0 on q")
    }

    @Test func ctrlCEndsItCleanly() async throws {
        let s = try await TopSession()
        defer { Task { await s.close() } }
        try await s.startTop()
        _ = try await s.waitForScreen("the header") { $0.contains { $0.hasPrefix("hallmark top ·") } }
        try await s.tmux(["send-keys", "-t", s.name, "C-c"])
        let status = try await s.waitForExit()
        #expect(status == 0, "hallmark top did not exit 0 on Ctrl-C")
    }
}
