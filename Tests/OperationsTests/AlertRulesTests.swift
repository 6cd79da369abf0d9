import Foundation
import HallmarkSubprocess
import Testing

/// `deploy/prometheus/alerts.yaml` as Debian's `promtool` reads it: the rules parse, every alert
/// has unit tests that fire it and that do not, the tests can fail, and every alert has a
/// runbook section in docs/operations.md. The Grafana dashboard's queries parse too. (The rules
/// evaluating on the bridge's live output is `MetricsServeTests.prometheusScrapesTheLiveValues`.)
@Suite("Alert rules", .timeLimit(.minutes(2)))
struct AlertRulesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let directory = root.appendingPathComponent("deploy/prometheus")

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The alert names, in file order.
    static func alerts() throws -> [String] {
        try text("deploy/prometheus/alerts.yaml").matches(of: /\n\s*- alert: (\w+)/).map { String($0.1) }
    }

    static func promtool(_ arguments: [String], in directory: URL = directory) async throws -> Subprocess.Result {
        try await Subprocess.run("/usr/bin/promtool", arguments, in: directory.path)
    }

    @Test func theRulesParseAndTheirTestsPass() async throws {
        let alerts = try Self.alerts()
        #expect(
            Set(alerts) == [
                "HallmarkConsumerLagGrowing", "HallmarkStageStalled", "HallmarkHighRejectionRate", "HallmarkSecurityEvents",
                "HallmarkWriterLeadershipFlapping", "HallmarkCheckpointNotWitnessed", "HallmarkMetricsMissing",
            ])
        let check = try await Self.promtool(["check", "rules", "alerts.yaml"])
        #expect(check.status == 0 && check.output.contains("SUCCESS: \(alerts.count) rules found"), "\(check.output)")
        let tests = try await Self.promtool(["test", "rules", "alerts.test.yaml"])
        #expect(tests.status == 0 && tests.output.contains("SUCCESS"), "\(tests.output)")
    }

    /// Each alert is expected to fire (with its labels) in one test and not to in another.
    @Test func everyAlertHasATestThatFiresItAndOneThatDoesNot() throws {
        let tests = try Self.text("deploy/prometheus/alerts.test.yaml")
        // Each expectation: `alertname: X` followed by its `exp_alerts` (empty or not).
        let expectations = tests.matches(of: /alertname: (\w+)\s+exp_alerts:( \[\])?/).map { (String($0.1), $0.2 == nil) }
        for alert in try Self.alerts() {
            #expect(expectations.contains { $0 == (alert, true) }, "no test fires \(alert)")
            #expect(expectations.contains { $0 == (alert, false) }, "no test expects \(alert) silent")
        }
    }

    /// The tests are live: the same tests against rules with a threshold moved fail.
    @Test func theTestsFailWhenAThresholdMoves() async throws {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("hallmark-alerts-\(UUID())")
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: copy) }
        let rules = try Self.text("deploy/prometheus/alerts.yaml")
        let moved = rules.replacingOccurrences(of: ") * 60 > 10\n", with: ") * 60 > 1000\n")
        #expect(moved != rules)
        try moved.write(to: copy.appendingPathComponent("alerts.yaml"), atomically: true, encoding: .utf8)
        try Self.text("deploy/prometheus/alerts.test.yaml").write(
            to: copy.appendingPathComponent("alerts.test.yaml"), atomically: true, encoding: .utf8)
        let result = try await Self.promtool(["test", "rules", "alerts.test.yaml"], in: copy)
        #expect(result.status != 0 && result.output.contains("HallmarkSecurityEvents"), "\(result.output)")
    }

    /// Every alert's runbook_url names a section of docs/operations.md that exists.
    @Test func everyAlertHasARunbook() throws {
        let rules = try Self.text("deploy/prometheus/alerts.yaml")
        let docs = try Self.text("docs/operations.md")
        for alert in try Self.alerts() {
            #expect(rules.contains("runbook_url: docs/operations.md#\(alert.lowercased())\n"), "\(alert)")
            #expect(docs.contains("\n### \(alert)\n"), "docs/operations.md has no section for \(alert)")
        }
    }

    @Test func prometheusConfigAndTheGrafanaDashboardParse() async throws {
        let config = try await Self.promtool(["check", "config", "prometheus.yml"])
        #expect(config.status == 0, "\(config.output)")
        let dashboard = try await Subprocess.run(
            "/usr/bin/python3",
            [
                Self.root.appendingPathComponent("Tests/Verifiers/grafana_check.py").path,
                Self.root.appendingPathComponent("deploy/grafana/hallmark.json").path,
            ])
        #expect(dashboard.status == 0 && dashboard.output.hasPrefix("ok: "), "\(dashboard.output)")
    }
}
