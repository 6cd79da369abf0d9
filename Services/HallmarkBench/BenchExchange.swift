import Foundation
import HallmarkCore
import HallmarkKafka
import Logging

/// What every service bench shares: a producer for the load, and a reader that times each
/// answer as it arrives and bills the phase's CPU to the service, the bench and the machine.
struct BenchExchange {
    let kafka: KafkaConfiguration
    let logger: Logger
    let producer: KafkaProducer
    /// The service under test.
    let service: BenchProcess

    /// One answer read back: its raw bytes, as parsed, the request it answers, and when it
    /// arrived.
    struct Answer {
        let value: [UInt8]
        let json: JSONValue
        let requestID: String
        let at: ContinuousClock.Instant
    }

    /// What a phase cost: wall time and the CPU seconds of the service, of this bench, and of
    /// the whole machine (nil off Linux).
    struct Cost {
        var seconds: Double
        var service: Double
        var bench: Double
        var machine: Double?

        /// Cores everything but the service and this bench used (the broker, PostgreSQL).
        var otherCores: Double? { machine.map { max(0, $0 - service - bench) / seconds } }
    }

    /// Reads `topic` (from its start: earlier phases' answers are skipped by id), runs `send`,
    /// and returns the answers to the requests `ids` with the phase's cost from the start of
    /// `send` to the last answer (or after `timeout`).
    func exchange(
        reading topic: String, ids: Set<String>, timeout: Duration = .seconds(600),
        send: @escaping @Sendable () async throws -> Void
    ) async throws -> ([Answer], Cost) {
        var config = kafka
        config.properties["auto.offset.reset"] = "earliest"
        let reader = try KafkaConsumer(
            configuration: config, groupID: "bench-reader-\(UUID())", topics: [topic],
            bufferCapacity: 8192, wakesOnProduce: true, logger: logger)
        try reader.start()
        let (serviceBefore, benchBefore, machineBefore) = (service.cpuSeconds, ProcessCPU.seconds(), MachineCPU.now())
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
        let cost = Cost(
            seconds: (ContinuousClock.now - start).seconds, service: service.cpuSeconds - serviceBefore,
            bench: ProcessCPU.seconds() - benchBefore,
            machine: MachineCPU.busySeconds(from: machineBefore, to: MachineCPU.now()))
        timer.cancel()
        try await sending.value
        await reader.close()
        return (out, cost)
    }

    /// Sends `outputs` at `pace` per second (all at once when nil), recording when each id was
    /// handed to the producer. Enqueued in order from this one task (a task per message could
    /// reorder a key's messages), on a 2 ms tick: what is due at each tick goes at once.
    func send(_ outputs: [KafkaOutgoingMessage], ids: [String], pace: Double?, sentAt: SentTimes) async throws {
        guard let pace else {
            let now = ContinuousClock.now
            for id in ids { sentAt.set(id, now) }
            return try await sendAll(outputs)
        }
        let start = ContinuousClock.now
        var groups: [KafkaDeliveryGroup] = []
        var i = 0
        var tick = start
        while i < outputs.count {
            tick = tick + .milliseconds(2)
            try await Task.sleep(until: tick)
            let due = min(outputs.count, Int(((ContinuousClock.now - start).seconds * pace).rounded(.down)) + 1)
            guard due > i else { continue }
            let now = ContinuousClock.now
            for id in ids[i..<due] { sentAt.set(id, now) }
            groups.append(try await producer.enqueue(Array(outputs[i..<due])))
            i = due
        }
        for group in groups { try await group.wait() }
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
