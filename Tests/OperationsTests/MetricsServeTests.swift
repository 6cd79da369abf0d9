import Foundation
import HallmarkCLICore
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import HallmarkSubprocess
import HallmarkTestSupport
import Logging
import Testing

/// `hallmark metrics serve`: the text it renders (checked by Debian's `promtool`), and the bridge
/// scraped by a real Prometheus server (Debian's `prometheus`) while a probe stage takes traffic,
/// its values read back through PromQL.
@Suite("hallmark metrics serve", .serialized, .timeLimit(.minutes(4)))
struct MetricsServeTests {
    static func snapshot(
        _ instance: String, at: Timestamp, processed: Double, timings: Int = 4
    ) -> Message<MetricsSnapshot> {
        Message(
            MetricsSnapshot(
                service: "probe", instance: instance, intervalSeconds: 10,
                counters: [
                    .init(name: "hallmark_stage_processed_total", dimensions: ["group": "g"], value: processed),
                    .init(
                        name: "hallmark_stage_rejected_total", dimensions: ["group": "g", "reason": "a \"quoted\"\\\nvalue"],
                        value: 3),
                ],
                gauges: [.init(name: "hallmark.odd-name", dimensions: ["service": "clash", "9x": "y"], value: 2.5)],
                histograms: [
                    .init(
                        name: "hallmark_stage_processing_ns", dimensions: ["group": "g"], count: timings, sum: 4000, min: 1,
                        max: 2000, p50: 900, p90: 1500, p99: 2000)
                ]), producedAt: at)
    }

    @Test func theTextIsPrometheusOwnAndTotalsOnlyGrow() async throws {
        let bridge = MetricsBridge()
        let now = Date()
        let t0 = Timestamp(Date(timeIntervalSinceNow: -5)), t1 = Timestamp(now)
        bridge.add(Self.snapshot("p-1", at: t0, processed: 10))
        bridge.add(Self.snapshot("p-1", at: t1, processed: 25))
        bridge.add(Self.snapshot("p-1", at: t0, processed: 10))  // a replay: ignored
        bridge.add(Self.snapshot("p-2", at: Timestamp(Date(timeIntervalSinceNow: -31)), processed: 99))  // stale
        let text = bridge.exposition(now: now)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.contains(#"hallmark_stage_processed_total{service="probe",instance="p-1",group="g"} 25"#), "\(text)")
        #expect(!text.contains("p-2"), "an instance silent for three intervals is left out")
        #expect(lines.filter { $0 == "# TYPE hallmark_stage_processed_total counter" }.count == 1)
        // Two snapshots' counts and sums, the last interval's quantiles.
        #expect(lines.contains(#"hallmark_stage_processing_ns_count{service="probe",instance="p-1",group="g"} 8"#))
        #expect(lines.contains(#"hallmark_stage_processing_ns_sum{service="probe",instance="p-1",group="g"} 8000"#))
        #expect(lines.contains(#"hallmark_stage_processing_ns{service="probe",instance="p-1",group="g",quantile="0.99"} 2000"#))
        // Names and label values made safe: escapes, a clashing dimension, a leading digit.
        #expect(text.contains(#"reason="a \"quoted\"\\\nvalue""#))
        #expect(text.contains(#"hallmark_odd_name{service="probe",instance="p-1",_9x="y",dimension_service="clash"} 2.5"#))

        // Debian's promtool parses it as the exposition format: 0, or 3 for lint advice only
        // (no HELP text, `_ns` units), never 1 for text it cannot parse.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID()).prom")
        try Data(text.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let check = try await Subprocess.run("/bin/sh", ["-c", "/usr/bin/promtool check metrics < '\(file.path)'"])
        #expect([0, 3].contains(check.status) && !check.output.contains("error"), "\(check.output)")
    }

    @Test func prometheusScrapesTheLiveValues() async throws {
        let id = String(UUID().uuidString.prefix(8)).lowercased()
        let (input, output, rejected, metrics) = (
            "test.prom.\(id).in", "test.prom.\(id).out", "test.prom.\(id).rejected", "test.prom.\(id).metrics"
        )
        let kafka = try KafkaConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
        let logger = Logger(label: "prometheus-test")
        try await KafkaAdmin(configuration: kafka, logger: logger).createTopics(
            [input, output, rejected, metrics], partitions: 2)
        let instance = "probe-\(id)"
        let probe = try ServiceProcess(
            "hallmark", arguments: ["probe"], name: instance,
            environment: [
                "HALLMARK_PROBE_INPUT": input, "HALLMARK_PROBE_OUTPUT": output, "HALLMARK_REJECTED_TOPIC": rejected,
                "HALLMARK_METRICS_TOPIC": metrics, "HALLMARK_METRICS_INTERVAL_MS": "500", "HALLMARK_INSTANCE": instance,
                "HALLMARK_PROBE_DATABASE": "0", "HALLMARK_GROUP_ID": "test-prom-\(id)", "HALLMARK_LOG_LEVEL": "info",
            ])
        defer { probe.signal(SIGKILL) }
        let bridge = try ServiceProcess(
            "hallmark", arguments: ["metrics", "serve", "--listen", "127.0.0.1:0"], name: "bridge-\(id)",
            environment: ["HALLMARK_METRICS_TOPIC": metrics])
        defer { bridge.signal(SIGKILL) }
        try await probe.waitForLog("stage started")
        let port = try #require(
            try await eventually(timeout: .seconds(30)) {
                bridge.rawLog.firstMatch(of: /serving http:\/\/127\.0\.0\.1:(\d+)\/metrics/).map { Int($0.1)! }
            })

        // Prometheus, scraping the bridge every second; the bridge's own labels win (honor_labels).
        let web = try LoopbackPort.free()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("prometheus-\(id)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("prometheus.yml")
        try Data(
            """
            global: {scrape_interval: 1s, evaluation_interval: 1s}
            rule_files: ["\(AlertRulesTests.directory.appendingPathComponent("alerts.yaml").path)"]
            scrape_configs:
              - job_name: hallmark
                honor_labels: true
                static_configs: [{targets: ["127.0.0.1:\(port)"]}]
            """.utf8
        ).write(to: config)
        let prometheus = try ServiceProcess(
            binary: URL(fileURLWithPath: "/usr/bin/prometheus"),
            arguments: [
                "--config.file=\(config.path)", "--storage.tsdb.path=\(directory.path)/data",
                "--web.listen-address=127.0.0.1:\(web)",
            ], name: "prometheus-\(id)", environment: [:])
        defer { prometheus.signal(SIGKILL) }

        // Traffic: 120 requests and 3 poison messages.
        let producer = try KafkaProducer(configuration: kafka, logger: logger)
        for i in 0..<120 {
            let body =
                #"{"schema":"hallmark.probe.request.v1","id":"\#(MessageID.random())","produced_at":"\#(Timestamp.now().text)","n":\#(i)}"#
            try await producer.send(topic: input, key: Array("k\(i % 8)".utf8), value: Array(body.utf8))
        }
        for poison in ["{not json", "[]", "{\"schema\":"] {
            try await producer.send(topic: input, key: nil, value: Array(poison.utf8))
        }
        await producer.close()

        /// One PromQL instant query's single value, if it has one.
        func query(_ promql: String) async throws -> Double? {
            let result = try await Subprocess.run(
                "/usr/bin/curl",
                [
                    "-fsS", "--max-time", "5", "--get", "--data-urlencode", "query=\(promql)",
                    "http://127.0.0.1:\(web)/api/v1/query",
                ])
            guard result.status == 0, case .object(let answer)? = try? JSONReader.parse(Array(result.output.utf8)),
                let rows = answer["data"]?.object?["result"]?.array, rows.count == 1,
                let value = rows[0].object?["value"]?.array, value.count == 2, let text = value[1].string
            else { return nil }
            return Double(text)
        }
        let selector = #"{service="probe",instance="\#(instance)",job="hallmark"}"#
        let processed = try await eventually(timeout: .seconds(90)) {
            try await query("sum(hallmark_stage_processed_total\(selector))").flatMap { $0 == 120 ? $0 : nil }
        }
        #expect(processed == 120)
        let poisoned = try await eventually(timeout: .seconds(30)) {
            try await query(#"sum(hallmark_stage_rejected_total{instance="\#(instance)",reason="invalid_json"})"#)
                .flatMap { $0 == 3 ? $0 : nil }
        }
        #expect(poisoned == 3)
        // A summary's count grows with the traffic; lag is there, per stage group.
        #expect(try await query("sum(hallmark_stage_processing_ns_count\(selector))") ?? 0 > 0)
        #expect(try await query("count(hallmark_stage_consumer_lag\(selector))") ?? 0 >= 1)
        // Lag per partition: the one probe owns both of the input's partitions.
        let partitions = try await eventually(timeout: .seconds(30)) {
            try await query(#"count(hallmark_stage_partition_lag{instance="\#(instance)",topic="\#(input)"})"#)
                .flatMap { $0 == 2 ? $0 : nil }
        }
        #expect(partitions == 2)
        #expect(try await query("max(hallmark_stage_stalled\(selector))") == 0)

        // The shipped alert rules evaluate on the bridge's live series without an error.
        let rules = try await eventually(timeout: .seconds(30)) { () -> [String]? in
            let result = try await Subprocess.run(
                "/usr/bin/curl", ["-fsS", "--max-time", "5", "http://127.0.0.1:\(web)/api/v1/rules"])
            guard result.status == 0, case .object(let answer)? = try? JSONReader.parse(Array(result.output.utf8)),
                let groups = answer["data"]?.object?["groups"]?.array
            else { return nil }
            let all = groups.flatMap { $0.object?["rules"]?.array ?? [] }.compactMap(\.object)
            // Evaluated at least once, each: health "ok" (an error says "err").
            guard !all.isEmpty, all.allSatisfy({ $0["health"]?.string == "ok" }) else { return nil }
            return all.map { "\($0["name"]?.string ?? "?"):\($0["state"]?.string ?? "?")" }
        }
        #expect(rules?.count == 7, "\(String(describing: rules))")
        // None fires for this healthy probe. (One may be pending: HallmarkMetricsMissing, from
        // evaluations before the first scrape had series; its `for:` outlasts the test.)
        #expect(rules?.contains { $0.hasSuffix(":firing") } == false, "\(String(describing: rules))")
    }
}
