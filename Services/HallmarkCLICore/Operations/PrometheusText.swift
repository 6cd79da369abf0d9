import HallmarkMessages

/// The Prometheus text exposition format (0.0.4) of metrics snapshots: each counter, gauge and
/// histogram of each instance, labelled with its `service` and `instance` beside its own
/// dimensions. A histogram becomes a summary: its last interval's p50, p90 and p99 as
/// quantiles, with `_sum` and `_count` accumulated by the caller (``MetricsBridge``), since a
/// snapshot's cover only its interval and Prometheus's must only grow.
package enum PrometheusText {
    /// A summary's running totals, for one series.
    package struct Totals: Sendable, Equatable {
        package var count: Double = 0
        package var sum: Double = 0
        package init(count: Double = 0, sum: Double = 0) {
            self.count = count
            self.sum = sum
        }
    }

    /// One series: a metric's labels and value.
    struct Sample {
        var suffix = ""
        var labels: [(String, String)]
        var value: Double
    }

    /// The exposition of `snapshots`; `totals` gives each histogram series' running count and
    /// sum, by ``seriesKey(instance:name:dimensions:)``.
    package static func render(_ snapshots: [Message<MetricsSnapshot>], totals: [String: Totals]) -> String {
        var families: [String: (type: String, samples: [Sample])] = [:]
        func add(_ name: String, _ type: String, _ sample: Sample) {
            let metric = metricName(name)
            // One name, one type: a name two services use as different types keeps the first.
            if let existing = families[metric], existing.type != type { return }
            families[metric, default: (type, [])].samples.append(sample)
        }
        for snapshot in snapshots {
            let base = [("service", snapshot.service), ("instance", snapshot.instance)]
            func labels(_ dimensions: [String: String]) -> [(String, String)] {
                base + dimensions.sorted { $0.key < $1.key }.map { (labelName($0.key), $0.value) }
            }
            for c in snapshot.counters { add(c.name, "counter", Sample(labels: labels(c.dimensions), value: c.value)) }
            for g in snapshot.gauges { add(g.name, "gauge", Sample(labels: labels(g.dimensions), value: g.value)) }
            for h in snapshot.histograms {
                let l = labels(h.dimensions)
                for (q, v) in [("0.5", h.p50), ("0.9", h.p90), ("0.99", h.p99)] where h.count > 0 {
                    add(h.name, "summary", Sample(labels: l + [("quantile", q)], value: v))
                }
                let total = totals[seriesKey(instance: snapshot.instance, name: h.name, dimensions: h.dimensions)] ?? Totals()
                add(h.name, "summary", Sample(suffix: "_sum", labels: l, value: total.sum))
                add(h.name, "summary", Sample(suffix: "_count", labels: l, value: total.count))
            }
        }
        var out = ""
        for (name, family) in families.sorted(by: { $0.key < $1.key }) {
            out += "# TYPE \(name) \(family.type)\n"
            for sample in family.samples {
                let labels = sample.labels.map { "\($0.0)=\"\(escape($0.1))\"" }.joined(separator: ",")
                out += "\(name)\(sample.suffix){\(labels)} \(number(sample.value))\n"
            }
        }
        return out
    }

    /// Where a histogram series' totals are kept.
    package static func seriesKey(instance: String, name: String, dimensions: [String: String]) -> String {
        ([instance, name] + dimensions.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] }).joined(separator: "\u{0}")
    }

    /// A metric name as Prometheus takes it (`[a-zA-Z_:][a-zA-Z0-9_:]*`): other characters
    /// (the snapshots allow `.` and `-`) become `_`.
    static func metricName(_ name: String) -> String { sanitize(name, colon: true) }

    /// A label name (`[a-zA-Z_][a-zA-Z0-9_]*`); one that would clash with `service`,
    /// `instance` or `quantile` is prefixed `dimension_`.
    static func labelName(_ name: String) -> String {
        let clean = sanitize(name, colon: false)
        return ["service", "instance", "quantile"].contains(clean) || clean.hasPrefix("__") ? "dimension_" + clean : clean
    }

    static func sanitize(_ name: String, colon: Bool) -> String {
        func allowed(_ c: Unicode.Scalar) -> Bool {
            ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "_" || (colon && c == ":")
        }
        var out = String(name.unicodeScalars.map { allowed($0) ? Character($0) : "_" })
        if let first = out.unicodeScalars.first, ("0"..."9").contains(first) { out = "_" + out }
        return out.isEmpty ? "_" : out
    }

    /// A label value: backslash, double quote and newline escaped.
    static func escape(_ value: String) -> String {
        var out = ""
        for c in value {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(c)
            }
        }
        return out
    }

    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
