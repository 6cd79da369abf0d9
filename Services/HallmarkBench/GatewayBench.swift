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

    /// One answer read back: its raw bytes, as parsed, the request it answers, and when it
    /// arrived.
    struct Answer {
        let value: [UInt8]
        let json: JSONValue
        let requestID: String
        let at: ContinuousClock.Instant
    }

    /// What a phase cost: wall time and the CPU seconds of the gateway, of this bench, and of
    /// the whole machine (nil off Linux).
    struct Cost {
        var seconds: Double
        var gateway: Double
        var bench: Double
        var machine: Double?

        /// Cores everything but the gateway and this bench used (the broker, PostgreSQL).
        var otherCores: Double? { machine.map { max(0, $0 - gateway - bench) / seconds } }
    }

    /// Reads `topic` (from its start: earlier phases' answers are skipped by id), runs `send`,
    /// and returns the answers to the requests `ids` with the phase's cost from the start of
    /// `send` to the last answer (or after `timeout`).
    func exchange(reading topic: String, ids: Set<String>, timeout: Duration = .seconds(600),
                  send: @escaping @Sendable () async throws -> Void) async throws -> ([Answer], Cost) {
        var config = kafka
        config.properties["auto.offset.reset"] = "earliest"
        let reader = try KafkaConsumer(configuration: config, groupID: "bench-reader-\(UUID())", topics: [topic],
                                       bufferCapacity: 8192, logger: logger)
        try reader.start()
        let (gatewayBefore, benchBefore, machineBefore) = (gateway.cpuSeconds, ProcessCPU.seconds(), MachineCPU.now())
        let start = ContinuousClock.now
        let sending = Task { try await send() }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            reader.beginClose()
        }
        var out: [Answer] = []
        out.reserveCapacity(ids.count)
        for await message in reader.messages {
            guard let json = try? JSONReader.parse(message.value), let id = json["request_id"]?.string, ids.contains(id)
            else { continue }
            out.append(Answer(value: message.value, json: json, requestID: id, at: .now))
            if out.count == ids.count { break }
        }
        let cost = Cost(seconds: (ContinuousClock.now - start).seconds, gateway: gateway.cpuSeconds - gatewayBefore,
                        bench: ProcessCPU.seconds() - benchBefore,
                        machine: MachineCPU.busySeconds(from: machineBefore, to: MachineCPU.now()))
        timer.cancel()
        try await sending.value
        await reader.close()
        return (out, cost)
    }

    /// Sends `outputs` in chunks, all at once.
    func sendAll(_ outputs: [KafkaOutgoingMessage]) async throws {
        for chunk in stride(from: 0, to: outputs.count, by: 1000) {
            try await producer.send(Array(outputs[chunk..<min(outputs.count, chunk + 1000)]))
        }
    }

    /// Latency percentiles in milliseconds.
    static func percentiles(_ latencies: [Double]) -> (p50: Double, p90: Double, p99: Double, max: Double) {
        let sorted = latencies.sorted()
        func at(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
        return (at(0.5), at(0.9), at(0.99), sorted.last ?? 0)
    }
}
