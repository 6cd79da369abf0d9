import Foundation
import HallmarkCore
import HallmarkMessages

extension OpsBoard {
    /// `GET /ops/data`: what the page draws, oldest point first; unknown values are null.
    package struct Data: Encodable, Sendable {
        package struct Point: Encodable, Sendable {
            var t: Int
            var inPerSecond: Double?
            var outPerSecond: Double?
            var p50Ms: Double?
            var p99Ms: Double?
            var lag: Double?

            enum CodingKeys: String, CodingKey {
                case t, lag
                case inPerSecond = "in_per_second", outPerSecond = "out_per_second", p50Ms = "p50_ms", p99Ms = "p99_ms"
            }
        }

        package struct Stage: Encodable, Sendable {
            var service: String
            var group: String
            /// Instances seen in the window.
            var instances: Int
            var points: [Point]
        }

        package struct Value: Encodable, Sendable {
            var t: Int
            var value: Double
        }

        package struct Log: Encodable, Sendable {
            var treeSize: [Value]
            var witnessedTreeSize: [Value]
            enum CodingKeys: String, CodingKey {
                case treeSize = "tree_size", witnessedTreeSize = "witnessed_tree_size"
            }
        }

        package struct Instance: Encodable, Sendable {
            var service: String
            var instance: String
            var stale: Bool
        }

        /// A security event as the page lists it: what and where, never its subject.
        package struct Event: Encodable, Sendable {
            var producedAt: String
            var service: String
            var kind: String
            var severity: String
            enum CodingKeys: String, CodingKey {
                case service, kind, severity
                case producedAt = "produced_at"
            }
        }

        var generatedAt: String
        var windowSeconds: Int
        var stages: [Stage]
        var rejectionsPerMinute: [Value]
        var securityEventsPerMinute: [Value]
        var log: Log
        var instances: [Instance]
        var securityEvents: [Event]

        enum CodingKeys: String, CodingKey {
            case stages, log, instances
            case generatedAt = "generated_at", windowSeconds = "window_seconds"
            case rejectionsPerMinute = "rejections_per_minute", securityEventsPerMinute = "security_events_per_minute"
            case securityEvents = "security_events"
        }
    }

    /// The page's data as of `now`: the buckets of the last ``windowSeconds``.
    package func data(now: Date = Date()) -> Data {
        let oldest = bucket(now) - windowSeconds
        let perMinute = 60 / Double(bucketSeconds)
        func series(_ values: [Int: Double], scale: Double = 1) -> [Data.Value] {
            values.filter { $0.key >= oldest }.sorted { $0.key < $1.key }.map { Data.Value(t: $0.key, value: $0.value * scale) }
        }
        let stages = self.stages.sorted { $0.key < $1.key }.compactMap { key, buckets -> Data.Stage? in
            let kept = buckets.filter { $0.key >= oldest }.sorted { $0.key < $1.key }
            guard !kept.isEmpty else { return nil }
            let instances = Set(kept.flatMap { $0.value.lag.keys })
            return Data.Stage(
                service: key.service, group: key.group, instances: instances.count,
                points: kept.map { t, b in
                    let counted = b.timings.values.reduce(0) { $0 + $1.count }
                    return Data.Point(
                        t: t, inPerSecond: b.inPerSecond.isEmpty ? nil : b.inPerSecond.values.reduce(0, +),
                        outPerSecond: b.outPerSecond.isEmpty ? nil : b.outPerSecond.values.reduce(0, +),
                        p50Ms: counted == 0
                            ? nil : b.timings.values.reduce(0) { $0 + $1.p50 * Double($1.count) } / Double(counted),
                        p99Ms: b.timings.values.map(\.p99).max(), lag: b.lag.isEmpty ? nil : b.lag.values.reduce(0, +))
                })
        }
        return Data(
            generatedAt: Timestamp(now).text, windowSeconds: windowSeconds, stages: stages,
            rejectionsPerMinute: series(rejections, scale: perMinute),
            securityEventsPerMinute: series(securityEvents, scale: perMinute),
            log: Data.Log(treeSize: series(treeSize), witnessedTreeSize: series(witnessedSize)),
            instances: latest.values.sorted { ($0.service, $0.instance) < ($1.service, $1.instance) }.map {
                Data.Instance(service: $0.service, instance: $0.instance, stale: $0.isStale(at: now))
            },
            securityEvents: events.map {
                Data.Event(
                    producedAt: $0.producedAt.text, service: $0.service, kind: $0.event.rawValue,
                    severity: $0.severity.rawValue)
            })
    }
}
