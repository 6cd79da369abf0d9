import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import Logging

/// The running gateway of `hallmark bench gateway` and what every phase shares: its topics,
/// its process, a producer, and a reader that times each answer as it arrives.
struct GatewayBench {
    let kafka: KafkaConfiguration
    let logger: Logger
    let run: String
    let gateway: BenchProcess
    let producer: KafkaProducer

    func topic(_ name: String) -> String { Self.topic(name, run: run) }

    /// A bench topic of run `run`, e.g. `bench.gateway.ab12cd34.inbound.in`.
    static func topic(_ name: String, run: String) -> String { "bench.gateway.\(run).\(name)" }

    var io: BenchExchange { BenchExchange(kafka: kafka, logger: logger, producer: producer, service: gateway) }
    typealias Answer = BenchExchange.Answer
    typealias Cost = BenchExchange.Cost

    /// See ``BenchExchange/exchange(reading:ids:timeout:send:)``.
    func exchange(
        reading topic: String, ids: Set<String>, timeout: Duration = .seconds(600),
        send: @escaping @Sendable () async throws -> Void
    ) async throws -> ([Answer], Cost) {
        try await io.exchange(reading: topic, ids: ids, timeout: timeout, send: send)
    }

    /// Sends `outputs` in chunks, all at once.
    func sendAll(_ outputs: [KafkaOutgoingMessage]) async throws { try await io.sendAll(outputs) }

    /// Latency percentiles in milliseconds.
    static func percentiles(_ latencies: [Double]) -> (p50: Double, p90: Double, p99: Double, max: Double) {
        BenchExchange.percentiles(latencies)
    }
}
