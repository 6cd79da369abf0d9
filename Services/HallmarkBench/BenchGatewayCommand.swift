import ArgumentParser
import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkKafka
import HallmarkMessages
import HallmarkRuntime
import Logging

/// `hallmark bench gateway`: E2EE-1 inbound messages through a `hallmark-gateway` process on
/// the real broker and PostgreSQL (sessions made by real handshakes, every counter checked
/// and recorded), beside in-process HKDF + AES-GCM open of the same messages in the same run.
/// ENC-1 request and ZIP figures are not measured yet.
public struct BenchGatewayCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "gateway", abstract: "E2EE-1 inbound throughput through the gateway against in-process open.")

    @Option(help: "Sessions the messages are spread over (each its own Kafka key).") var sessions = 64
    @Option(help: "Inbound messages to send, all at once.") var messages = 50_000
    @Option(help: "Partitions of the bench topics.") var partitions = 4
    @Option(help: "The hallmark-gateway binary (default: beside this hallmark binary).") var gatewayBinary: String?

    public init() {}

    public func run() async throws {
        var logger = Logger(label: "hallmark.bench")
        logger.logLevel = .warning
        let kafka = try KafkaConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
        let binary = gatewayBinary.map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
                .appendingPathComponent("hallmark-gateway")
        let run = String(UUID().uuidString.prefix(8)).lowercased()
        func topic(_ name: String) -> String { "bench.gateway.\(run).\(name)" }
        let names = ["encrypt.in", "encrypt.out", "decrypt.in", "decrypt.out", "handshake.in", "handshake.out",
                     "inbound.in", "plaintext.out", "outbound.in", "outbound.out"]
        try await KafkaAdmin(configuration: kafka, logger: logger).createTopics(names.map(topic), partitions: partitions)
        // Throw-away secrets, never printed.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hallmark-bench-gateway-\(run)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(Base64.encode(try SecureRandom.bytes(32)).utf8).write(to: folder.appendingPathComponent("bench"))
        try Data("bench".utf8).write(to: folder.appendingPathComponent("signing-version"))
        var env: [String: String] = [
            "HALLMARK_GATEWAY_SECRETS_DIR": folder.path, "HALLMARK_GATEWAY_KEK": try KeyEncryptionFile.generateText(title: "bench", index: false),
            "HALLMARK_GATEWAY_SCHEMA": "bench_gateway_\(run)", "HALLMARK_GROUP_ID": "bench-gateway-\(run)",
            "HALLMARK_INSTANCE": "bench-gateway", "HALLMARK_LOG_LEVEL": "info",
        ]
        for (variable, name) in [("ENCRYPT_INPUT", "encrypt.in"), ("ENCRYPT_OUTPUT", "encrypt.out"), ("DECRYPT_INPUT", "decrypt.in"),
                                 ("DECRYPT_OUTPUT", "decrypt.out"), ("HANDSHAKE_INPUT", "handshake.in"),
                                 ("HANDSHAKE_OUTPUT", "handshake.out"), ("INBOUND_INPUT", "inbound.in"),
                                 ("PLAINTEXT_OUTPUT", "plaintext.out"), ("OUTBOUND_INPUT", "outbound.in"),
                                 ("OUTBOUND_OUTPUT", "outbound.out")] {
            env["HALLMARK_GATEWAY_\(variable)"] = topic(name)
        }
        let gateway = try BenchProcess(binary: binary, environment: env)
        defer { gateway.stop() }
        try await gateway.waitForLog("stage started")
        print("hallmark bench gateway: \(messages) inbound messages over \(sessions) sessions, \(partitions) partitions, \(ProcessInfo.processInfo.activeProcessorCount) cores")

        // Sessions by real handshakes.
        let producer = try KafkaProducer(configuration: kafka, logger: logger)
        let pairs = try (0..<sessions).map { _ in try X25519.generate() }
        let hellos = pairs.enumerated().map { i, pair in
            E2EEHandshake(id: MessageID.random(), producedAt: Timestamp.now(), sessionID: "bench-\(run)-\(i)",
                          clientPublicKey: pair.publicKey.base64EncodedString())
        }
        let handshakes = try await collect(kafka: kafka, topic: topic("handshake.out"), count: sessions, logger: logger) {
            try await producer.send(try hellos.map { try .json(topic: topic("handshake.in"), key: $0.sessionID, $0) })
        }
        var keys: [String: InvisoSession] = [:]
        for bytes in handshakes {
            let r = try JSONCoding.decode(E2EEHandshakeResult.self, from: bytes)
            guard let i = hellos.firstIndex(where: { $0.sessionID == r.sessionID }),
                  let gatewayKey = try? Base64.decode(r.gatewayPublicKey ?? "", length: 32) else { continue }
            keys[r.sessionID] = try InvisoSession(sessionKey: InvisoHandshake.clientSessionKey(
                clientPrivateKey: pairs[i].privateKey, gatewayPublicKey: gatewayKey))
        }
        guard keys.count == sessions else { throw BenchError("only \(keys.count) of \(sessions) handshakes completed") }

        // The load: counters in order per session, round robin over the sessions.
        let ids = hellos.map(\.sessionID)
        let load = try (0..<messages).map { n in
            let sid = ids[n % sessions]
            return E2EEInbound(id: MessageID.random(), producedAt: Timestamp.now(), sessionID: sid,
                               message: try keys[sid]!.seal(Data("bench message \(n) ".utf8) + Data(count: 64),
                                                            direction: .clientToGateway, counter: UInt64(n / sessions)))
        }
        // In process: the same messages opened (HKDF of the message key + AES-GCM), one thread.
        let clock = ContinuousClock()
        let local = try clock.measure {
            for m in load { _ = try keys[m.sessionID]!.open(m.message, direction: .clientToGateway) }
        }
        let localRate = Double(messages) / local.seconds
        let values = try load.map { try StageOutput.json(topic: topic("inbound.in"), key: $0.sessionID, $0) }
        var decrypted = 0
        let start = ContinuousClock.now
        let answers = try await collect(kafka: kafka, topic: topic("plaintext.out"), count: messages, logger: logger) {
            for chunk in stride(from: 0, to: values.count, by: 1000) {
                try await producer.send(Array(values[chunk..<min(values.count, chunk + 1000)]))
            }
        }
        let elapsed = (ContinuousClock.now - start).seconds
        for bytes in answers where (try? JSONCoding.decode(E2EEPlaintext.self, from: bytes))?.status == .decrypted { decrypted += 1 }
        await producer.close()
        let rate = Double(answers.count) / elapsed
        print(String(format: "in-process HKDF + AES-GCM open, 1 thread: %.0f msgs/s", localRate))
        print(String(format: "through broker + PostgreSQL (sent at once, counter statement per batch): %.0f msgs/s (%d/%d decrypted in %.1f s) → %.1f%% of one thread's in-process open",
                     rate, decrypted, messages, elapsed, 100 * rate / localRate))
        print(String(format: "gateway CPU: %.1f s for the run", gateway.cpuSeconds))
        guard decrypted == messages else { throw ExitCode.failure }
    }

    /// Reads `topic` from its end, runs `send`, and returns the first `count` messages (or
    /// fewer after 300 s).
    func collect(kafka: KafkaConfiguration, topic: String, count: Int, logger: Logger,
                 send: () async throws -> Void) async throws -> [[UInt8]] {
        var config = kafka
        config.properties["auto.offset.reset"] = "earliest"
        let reader = try KafkaConsumer(configuration: config, groupID: "bench-reader-\(UUID())", topics: [topic],
                                       bufferCapacity: 8192, logger: logger)
        try reader.start()
        try await send()
        let timer = Task {
            try? await Task.sleep(for: .seconds(300))
            reader.beginClose()
        }
        var out: [[UInt8]] = []
        for await message in reader.messages {
            out.append(message.value)
            if out.count == count { break }
        }
        timer.cancel()
        await reader.close()
        return out
    }
}
